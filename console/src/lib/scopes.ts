/** Scopes grouped by the resource they guard, for the checkboxes of a new API key. */
import { SCOPES } from "../generated/enums.ts";

export type Scope = (typeof SCOPES)[number];

export interface ScopeGroup {
  /** `leads` */
  resource: string;
  /** `Leads` */
  label: string;
  scopes: Scope[];
}

/**
 * Groups `resource:action` scopes by resource, keeping the contract's order of resources and of actions.
 *
 * @example groupScopes(["leads:read", "leads:write", "events:read"])
 * // [{ resource: "leads", label: "Leads", scopes: [...] }, { resource: "events", label: "Events", scopes: [...] }]
 */
export function groupScopes(scopes: readonly Scope[] = SCOPES): ScopeGroup[] {
  const groups: ScopeGroup[] = [];
  for (const scope of scopes) {
    const resource = scope.split(":")[0] ?? scope;
    let group = groups.find((candidate) => candidate.resource === resource);
    if (!group) {
      const words = resource.replaceAll("_", " ");
      group = { resource, label: words.charAt(0).toUpperCase() + words.slice(1), scopes: [] };
      groups.push(group);
    }
    group.scopes.push(scope);
  }
  return groups;
}

/** The scopes a key of this mode can use: resetting the test data is for test keys only. */
export function scopesOf(mode: "live" | "test"): Scope[] {
  return SCOPES.filter((scope) => mode === "test" || scope !== "test_data:write");
}

/** What a scope allows, in words. */
export function describeScope(scope: Scope): string {
  if (scope === "test_data:write") return "Reset the test data";
  const [resource, action] = scope.split(":");
  return action === "write" ? `Create and change ${resource}` : `Read ${resource}`;
}
