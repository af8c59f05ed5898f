// A real Disburse server for the tests: `disburse serve` (built from this
// repository, or DISBURSE_BIN) on a fresh SQLite database, on a free port
// of 127.0.0.1, with an organisation made through the operator API: a
// float, an API key, and one registered member.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repository = fileURLToPath(new URL("../../../../", import.meta.url));
const adminToken = "ts-client-tests-operator-token-0123456789";

/** The msisdn registered as a member: payments to it settle at submit. */
export const member = "254712345678";
/** A valid msisdn that is no member: payments to it wait, PENDING. */
export const nonMember = "447911123456";
/** The largest amount of one payment the server takes (--max-amount): 2^53 minor units and more fit. */
export const maxAmount = "100000000000000.00";

export interface TestServer {
  url: string;
  apiKey: string;
  accountId: string;
  /** admin calls the operator API and returns the parsed answer, failing on a non-2xx. */
  admin(method: string, path: string, body?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/** startServer builds (once per process) and starts the server, and makes the organisation. */
export async function startServer(): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "disburse-ts-"));
  const binary = process.env.DISBURSE_BIN ?? build(dir);
  const child = spawn(binary, [
    "serve",
    "--listen", "127.0.0.1:0",
    "--database-url", `sqlite:${join(dir, "disburse.db")}`,
    "--admin-token", adminToken,
    "--log-format", "json",
    "--max-amount", maxAmount,
    "--worker-interval", "100ms",
    "--webhook-allow-private",
  ], { stdio: ["ignore", "ignore", "pipe"] });
  const close = async () => {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const url = `http://${await servingAddress(child)}`;
    const admin = operator(url);
    const org = (await admin("POST", "/admin/organisations", { name: "TypeScript Ltd" })) as { id: string; accounts: { id: string }[] };
    const accountId = org.accounts[0]!.id;
    const key = (await admin("POST", `/admin/organisations/${org.id}/apiKeys`)) as { apiKey: string };
    await admin("POST", "/admin/members", { msisdn: member });
    return { url, apiKey: key.apiKey, accountId, admin, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function build(dir: string): string {
  const binary = join(dir, "disburse");
  execFileSync("go", ["build", "-o", binary, "./cmd/disburse"], { cwd: repository, stdio: "inherit" });
  return binary;
}

/** servingAddress reads the address the server bound from its JSON log, within 30 s. */
function servingAddress(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = "";
    const timer = setTimeout(() => reject(new Error(`the server did not start within 30 s:\n${log}`)), 30_000);
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      log += chunk;
      const serving = log.split("\n").find((line) => line.includes('"msg":"disburse serving"'));
      if (serving !== undefined) {
        clearTimeout(timer);
        child.stderr!.resume(); // keep reading, so that the server never blocks on a full pipe
        resolve((JSON.parse(serving) as { addr: string }).addr);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${log}`));
    });
  });
}

function operator(url: string) {
  return async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(url + path, {
      method,
      headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) {
      throw new Error(`${method} ${path}: ${response.status} ${text}`);
    }
    return text === "" ? undefined : JSON.parse(text);
  };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    child.on("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
