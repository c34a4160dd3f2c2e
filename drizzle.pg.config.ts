/** drizzle-kit configuration of the PostgreSQL schema: `npm run db:generate:pg` writes migrations for src/db/engines/pg/schema.ts into drizzle/pg/. */
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/engines/pg/schema.ts',
  out: './drizzle/pg',
});
