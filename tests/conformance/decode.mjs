// Decode session/update params with the TypeScript SDK's own zod schemas, one JSON text
// per stdin line; print one JSON line per input: {"ok": true, "value": ...} or {"ok": false}.
// Usage: node decode.mjs <path of the SDK's unstable zod.gen.js> <export name>
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [modulePath, exportName] = process.argv.slice(2);
const schemas = await import(pathToFileURL(modulePath).href);
const schema = schemas[exportName];
if (!schema) {
  console.error(`${modulePath} has no export ${exportName}`);
  process.exit(2);
}
const out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let parsed;
  try {
    parsed = JSON.parse(line);
  } catch {
    out.push('{"ok":false,"why":"json"}');
    continue;
  }
  const result = schema.safeParse(parsed);
  out.push(
    result.success
      ? JSON.stringify({ ok: true, value: result.data })
      : JSON.stringify({ ok: false, why: result.error.issues[0]?.code ?? "?" }),
  );
}
process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
