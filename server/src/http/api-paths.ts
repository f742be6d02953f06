/** The paths of the API and of the account endpoints: one caller's data, answered by the contract's operations. */
export function isApiPath(path: string): boolean {
  return path.startsWith("/v1/") || path.startsWith("/api/");
}
