/** drizzle-kit configuration: `npx drizzle-kit generate` writes migrations for src/db/schema.ts into drizzle/. */
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema/schema.ts',
  out: './drizzle',
});
