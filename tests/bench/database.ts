/** A throwaway database on the machine's PostgreSQL (DATABASE_URL) for one benchmark run. */
import { randomBytes } from "node:crypto";
import pg from "pg";

export async function benchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    console.error("Set DATABASE_URL (the machine's PostgreSQL) to run this benchmark.");
    process.exit(2);
  }
  const name = `bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
