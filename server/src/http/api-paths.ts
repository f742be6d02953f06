/**
 * The paths of the API and of the account endpoints: one caller's data, answered by the contract's operations.
 * Case-insensitive, as the contract's routes are matched (`/V1/leads` is `/v1/leads`).
 */
export function isApiPath(path: string): boolean {
  const start = path.slice(0, 5).toLowerCase();
  return start.startsWith("/v1/") || start === "/api/";
}
