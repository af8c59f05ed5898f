// The generated files must be what scripts/generate.mjs makes of the
// OpenAPI document today: a change to the document without `npm run
// generate` fails here.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

const root = new URL("../../", import.meta.url); // from dist/test/ to clients/typescript/

test("src/schema.gen.ts and src/fields.gen.ts are current", async () => {
  const script = new URL("scripts/generate.mjs", root).href;
  const { generate } = (await import(script)) as { generate: () => Promise<{ schema: string; fields: string }> };
  const made = await generate();
  assert.equal(await readFile(new URL("src/schema.gen.ts", root), "utf8"), made.schema, "src/schema.gen.ts is stale: run npm run generate");
  assert.equal(await readFile(new URL("src/fields.gen.ts", root), "utf8"), made.fields, "src/fields.gen.ts is stale: run npm run generate");
});
