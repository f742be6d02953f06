/**
 * House rule 8: every export of the published packages has JSDoc with an `@example`, which is what an integrator sees
 * in the editor. Read from the entry points with the TypeScript compiler, so a new export without one fails here.
 */
import { resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const ENTRIES = ["sdk/src/index.ts", "webhook-verifier/src/index.ts", "webhook-verifier/src/node.ts"];
// Generated from the contract (openapi-typescript): documented per operation and schema, not as a whole.
const GENERATED = new Set(["paths", "components", "operations", "webhooks"]);

function exportsWithoutExample(entry: string): string[] {
  const program = ts.createProgram([resolve(root, entry)], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
    types: ["node"],
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(resolve(root, entry));
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`cannot read ${entry}`);
  const missing: string[] = [];
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    if (GENERATED.has(exported.name)) continue;
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const documented = (symbol.declarations ?? []).some((declaration) => {
      // A variable's JSDoc sits on its statement.
      const node = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
      return ts.getJSDocTags(node).some((tag) => tag.tagName.text === "example");
    });
    if (!documented) missing.push(exported.name);
  }
  return missing.sort();
}

describe("JSDoc of the published packages", () => {
  it.each(ENTRIES)("every export of %s has an @example", (entry) => {
    expect(exportsWithoutExample(entry)).toEqual([]);
  });
});
