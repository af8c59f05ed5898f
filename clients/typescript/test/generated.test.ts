// The generated files must be what scripts/generate.mjs makes of the
// OpenAPI documents today: a change to a document without `npm run
// generate` fails here.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

const root = new URL("../../", import.meta.url); // from dist/test/ to clients/typescript/

test("the generated files in src/ are current", async () => {
  const script = new URL("scripts/generate.mjs", root).href;
  const { generate } = (await import(script)) as { generate: () => Promise<Record<string, string>> };
  const files = await generate();
  assert.deepEqual(Object.keys(files).sort(), ["fields.gen.ts", "schema-2026-11-01.gen.ts", "schema.gen.ts"]);
  for (const [file, text] of Object.entries(files)) {
    assert.equal(await readFile(new URL(`src/${file}`, root), "utf8"), text, `src/${file} is stale: run npm run generate`);
  }
});
