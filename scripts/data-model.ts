/**
 * Writes docs/data-model.md: the tables as the migrations leave them today (not their history), read from a migrated
 * database's catalog, each with the comment its migration gave it. `npm run docs:data-model` against DATABASE_URL
 * (a database it may migrate); tests/foundation/data-model.test.ts fails when the committed page is stale.
 */
import { writeFileSync } from "node:fs";
import pg from "pg";
import { loadConfig } from "../server/src/config.ts";
import { migrate } from "../server/src/db/migrate.ts";

interface Column {
  table: string;
  name: string;
  type: string;
  nullable: boolean;
  default: string | null;
  comment: string | null;
}

const HEADER = `# The data model

The tables as the migrations leave them today, generated from a migrated database's catalog
(\`npm run docs:data-model\`; a test fails when this page is stale). Why each migration was made is in its own file,
[server/migrations/](../server/migrations/); the states of a delivery are on [webhook-deliveries.md](webhook-deliveries.md),
the life of an event on [change-stream.md](change-stream.md). pg-boss's tables are its own, in the schema \`jobs\`.
`;

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

/** The page, from a migrated database. */
export async function renderDataModel(pool: pg.Pool): Promise<string> {
  const tables = await pool.query<{ name: string; comment: string | null }>(
    `SELECT c.relname AS name, obj_description(c.oid, 'pg_class') AS comment
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY c.relname`,
  );
  const columns = await pool.query<Column>(
    `SELECT c.table_name AS table, c.column_name AS name, format_type(a.atttypid, a.atttypmod) AS type,
            c.is_nullable = 'YES' AS nullable, c.column_default AS default,
            col_description(a.attrelid, a.attnum) AS comment
       FROM information_schema.columns c
       JOIN pg_attribute a ON a.attrelid = format('public.%I', c.table_name)::regclass AND a.attname = c.column_name
      WHERE c.table_schema = 'public' ORDER BY c.table_name, c.ordinal_position`,
  );
  const constraints = await pool.query<{ table: string; name: string; definition: string }>(
    `SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS definition
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND contype IN ('p', 'u', 'f', 'c')
      ORDER BY 1, contype, conname`,
  );
  const indexes = await pool.query<{ table: string; name: string; definition: string }>(
    `SELECT tablename AS table, indexname AS name, indexdef AS definition FROM pg_indexes
      WHERE schemaname = 'public' AND indexname NOT IN (SELECT conname FROM pg_constraint) ORDER BY 1, 2`,
  );
  const functions = await pool.query<{ signature: string; returns: string; comment: string | null }>(
    `SELECT p.oid::regprocedure::text AS signature, pg_get_function_result(p.oid) AS returns,
            obj_description(p.oid, 'pg_proc') AS comment
       FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace ORDER BY p.proname`,
  );
  const parts = [HEADER];
  for (const table of tables.rows) {
    parts.push(`## ${table.name}\n\n${table.comment ?? "(no comment: give the table one in a migration)"}\n`);
    parts.push("| column | type | null | default |\n|---|---|---|---|");
    for (const column of columns.rows.filter((row) => row.table === table.name)) {
      const name = column.comment ? `${column.name} (${cell(column.comment)})` : column.name;
      parts.push(`| ${name} | ${column.type} | ${column.nullable ? "yes" : ""} | ${cell(column.default ?? "")} |`);
    }
    const rules = [
      ...constraints.rows.filter((row) => row.table === table.name).map((row) => `${row.name}: ${row.definition}`),
      ...indexes.rows
        .filter((row) => row.table === table.name)
        .map((row) => `${row.name}: ${row.definition.replace(/^CREATE (UNIQUE )?INDEX \S+ ON public\.\S+ /, "$1")}`),
    ];
    parts.push(rules.length > 0 ? `\n${rules.map((rule) => `- \`${rule}\``).join("\n")}\n` : "");
  }
  parts.push(
    "## Functions\n\nThe statements that travel with a write, kept as PL/pgSQL so that their plans are kept.\n",
  );
  parts.push("| function | returns | what it does |\n|---|---|---|");
  for (const fn of functions.rows) {
    parts.push(
      `| \`${fn.signature}\` | ${fn.returns} | ${cell(fn.comment ?? "(no comment: give it one in a migration)")} |`,
    );
  }
  return `${parts.join("\n").trimEnd()}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { databaseUrl } = loadConfig();
  if (!databaseUrl) throw new Error("set DATABASE_URL to a database that the migrations may be applied to");
  const pool = new pg.Pool({ connectionString: databaseUrl });
  try {
    await migrate(pool);
    writeFileSync(new URL("../docs/data-model.md", import.meta.url), await renderDataModel(pool));
  } finally {
    await pool.end();
  }
}
