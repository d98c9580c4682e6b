// Drive the real `tusk mcp` server with the official TypeScript MCP SDK (pinned in
// package.json / package-lock.json) over stdio, and over streamable HTTP (`tusk mcp --http`)
// in the http_transport scenario.
//
// Usage: node client_ts.mjs TUSK_BINARY SCRATCH_DIR
//
// Every server is spawned as `TUSK_BINARY mcp [flags]` with its working directory set
// to SCRATCH_DIR (so its stores default to SCRATCH_DIR/.premath). Prints one line per
// scenario, `ok NAME` or `FAIL NAME: WHY`, then `N passed, M failed`; exits 0 iff every
// scenario passed. Server stderr goes to SCRATCH_DIR/ts-server-*.stderr and is echoed
// to our stderr when a scenario fails.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

if (process.argv.length !== 4) {
  console.error('usage: node client_ts.mjs TUSK_BINARY SCRATCH_DIR');
  process.exit(2);
}
const TUSK = path.resolve(process.argv[2]);
const WORK = path.resolve(process.argv[3]);
const EFFECTS = path.join(WORK, '.premath', 'host_effects.jsonl');
const INSTR = 'instr://tests/mcp/client_ts';
const TOOLS = ['scheme_eval', 'describe_actions', 'session_open', 'session_close'];
const SPIN = '(begin (issue.ready) (let loop ((i 0)) (if (< i 300000) (loop (+ i 1)) i)) (issue.ready))';
const CRASH = '(define b (box 1)) (set-box! b b) (car b)';
const claim = (who) => `(issue.claim_next (hash "assignee" "${who}"))`;
const CALL_TIMEOUT = { timeout: 30000 };

const streamErrors = []; // transport/protocol errors: stdout must carry JSON-RPC only
const stderrLogs = [];

class Fail extends Error {}
function check(cond, why) {
  if (!cond) throw new Fail(why);
}
const j = (v, n = 300) => (JSON.stringify(v) ?? String(v)).slice(0, n);

function tusk(...args) {
  const p = spawnSync(TUSK, args, { cwd: WORK, encoding: 'utf8', timeout: 60000 });
  if (p.error) throw p.error;
  return p;
}

function digest() {
  const p = tusk('policy', 'digest');
  check(p.status === 0, `\`tusk policy digest\` exited ${p.status}: ${p.stderr.trim()}`);
  return p.stdout.trim();
}

async function connect(...flags) {
  const logPath = path.join(WORK, `ts-server-${stderrLogs.length + 1}.stderr`);
  stderrLogs.push(logPath);
  fs.writeFileSync(logPath, `# tusk mcp ${flags.join(' ')}\n`);
  const fd = fs.openSync(logPath, 'a');
  const transport = new StdioClientTransport({ command: TUSK, args: ['mcp', ...flags], cwd: WORK, stderr: fd });
  const client = new Client({ name: 'tusk-tests-ts', version: '0.0.0' }, { capabilities: {} });
  client.onerror = (e) => streamErrors.push(String(e?.message ?? e));
  try {
    await client.connect(transport, CALL_TIMEOUT);
  } finally {
    fs.closeSync(fd); // the child holds its own copy
  }
  return client;
}

async function withServer(flags, fn) {
  const c = await connect(...flags);
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

const HTTP_LINE = /serving streamable HTTP at (http:\/\/\S+)/;

// `tusk mcp --http 127.0.0.1:0 FLAGS` as a child process: waits for the stderr line naming
// the bound address, connects the SDK's streamable HTTP client to it, runs fn(client), then
// closes the client and terminates the server (killing it if it lingers).
async function withHttpServer(flags, fn) {
  const logPath = path.join(WORK, `ts-server-${stderrLogs.length + 1}.stderr`);
  stderrLogs.push(logPath);
  fs.writeFileSync(logPath, `# tusk mcp --http 127.0.0.1:0 ${flags.join(' ')}\n`);
  const fd = fs.openSync(logPath, 'a');
  const child = spawn(TUSK, ['mcp', '--http', '127.0.0.1:0', ...flags], { cwd: WORK, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd); // the child holds its own copy
  let exited = null;
  const gone = new Promise((resolve) => child.on('exit', (code, signal) => resolve((exited = { code, signal }))));
  let client = null;
  try {
    let url = null;
    const deadline = Date.now() + 20000;
    while (!url) {
      const m = HTTP_LINE.exec(fs.readFileSync(logPath, 'utf8'));
      if (m) url = m[1];
      else {
        check(!exited, `\`tusk mcp --http\` exited ${j(exited)} before serving`);
        check(Date.now() < deadline, "no 'serving streamable HTTP at' line on stderr within 20 s");
        await sleep(50);
      }
    }
    check(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*\/mcp$/.test(url), `bound address ${j(url)}`);
    client = new Client({ name: 'tusk-tests-ts', version: '0.0.0' }, { capabilities: {} });
    // Errors while the scenario runs are protocol trouble; once we hang up, the SDK reports
    // its own aborting of the standalone GET stream (AbortError) and is not listened to.
    let closing = false;
    client.onerror = (e) => {
      if (!closing) streamErrors.push(`http: ${String(e?.message ?? e)}`);
    };
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport, CALL_TIMEOUT);
    const out = await fn(client);
    closing = true;
    await transport.terminateSession(); // DELETE /mcp: throws unless the server ends the session (or answers 405)
    return out;
  } finally {
    if (client) await client.close().catch(() => {});
    if (!exited) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10000);
      await gone;
      clearTimeout(t);
    }
  }
}


// `tusk mcp --http 127.0.0.1:0 FLAGS` without a client: {url, stop()}.
async function startHttp(flags) {
  const logPath = path.join(WORK, `ts-server-${stderrLogs.length + 1}.stderr`);
  stderrLogs.push(logPath);
  fs.writeFileSync(logPath, `# tusk mcp --http 127.0.0.1:0 ${flags.join(' ')}\n`);
  const fd = fs.openSync(logPath, 'a');
  const child = spawn(TUSK, ['mcp', '--http', '127.0.0.1:0', ...flags], { cwd: WORK, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  let exited = null;
  const gone = new Promise((resolve) => child.on('exit', (code, signal) => resolve((exited = { code, signal }))));
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10000);
      await gone;
      clearTimeout(t);
    }
  };
  const deadline = Date.now() + 20000;
  for (;;) {
    const m = HTTP_LINE.exec(fs.readFileSync(logPath, 'utf8'));
    if (m) return { url: m[1], stop };
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Fail(`\`tusk mcp --http\` did not serve (${j(exited)})`);
    }
    await sleep(50);
  }
}

// An SDK client over HTTP carrying a bearer token (or none).
async function httpClient(url, token) {
  const client = new Client({ name: 'tusk-tests-ts', version: '0.0.0' }, { capabilities: {} });
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }), CALL_TIMEOUT);
  return client;
}

const sha256 = async (text) => {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(text).digest('hex');
};

const texts = (r) => (r.content ?? []).filter((b) => b.type === 'text').map((b) => b.text);
const show = (r) => `isError=${r.isError} text=${j(texts(r).join(' | '))}`;
const call = (c, name, args) => c.callTool({ name, arguments: args }, undefined, CALL_TIMEOUT);

function checkResultShape(r, program) {
  const sc = r.structuredContent;
  check(sc && typeof sc === 'object' && !Array.isArray(sc), `${program}: structuredContent is ${j(sc)} (${show(r)})`);
  check(sc.kind === 'premath.scheme_eval.result.v0', `${program}: kind=${j(sc.kind)}`);
  check(r.content.length === 1 && texts(r).length === 1, `${program}: want exactly one text block, got ${j(r.content)}`);
  const fc = sc.failureClasses;
  check(Array.isArray(fc) && j(fc, 1e6) === j([...fc].sort(), 1e6), `${program}: failureClasses not a sorted list: ${j(fc)}`);
  check(Array.isArray(sc.effects), `${program}: effects missing`);
  check(typeof sc.runId === 'string' && sc.runId, `${program}: runId missing`);
  check(sc.result === 'accepted' || sc.result === 'rejected', `${program}: result=${j(sc.result)}`);
  check(Boolean(r.isError) === (sc.result === 'rejected'), `${program}: isError=${r.isError} but result=${sc.result}`);
}

async function evalOk(c, program, extra = {}) {
  const r = await call(c, 'scheme_eval', { program, ...extra });
  check(!r.isError, `${program}: expected accepted, got ${show(r)}; structuredContent=${j(r.structuredContent, 400)}`);
  checkResultShape(r, program);
  return r.structuredContent;
}

async function evalRejected(c, program, extra = {}) {
  const r = await call(c, 'scheme_eval', { program, ...extra });
  check(r.isError, `${program}: expected isError true, got ${show(r)}`);
  checkResultShape(r, program);
  return r.structuredContent;
}

// The diverged runs and the closing summary of a failed `tusk replay`, on one line.
function replayFailure(p) {
  const lines = `${p.stdout}${p.stderr}`.split('\n').map((l) => l.trim()).filter(Boolean);
  const bad = lines.filter((l) => l.includes('DIVERGED') || l.toLowerCase().includes('error')).slice(0, 3);
  return [...bad, ...lines.slice(-1)].join(' / ').slice(0, 900);
}

function effectLog() {
  return fs
    .readFileSync(EFFECTS, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

const isObjectSchema = (s) => s && typeof s === 'object' && s.type === 'object';

// ---------------------------------------------------------------- scenarios

const SCENARIOS = [
  // listTools parses every tool with the SDK's zod schemas (inputSchema/outputSchema must be
  // objects with type "object", every property schema an object, not `true`) and compiles an
  // ajv validator for each outputSchema.
  ['tools_list', async (c) => {
    const tools = Object.fromEntries((await c.listTools(undefined, CALL_TIMEOUT)).tools.map((t) => [t.name, t]));
    const missing = TOOLS.filter((t) => !(t in tools));
    check(!missing.length, `missing tools: ${missing} (have ${Object.keys(tools)})`);
    for (const t of TOOLS) check(isObjectSchema(tools[t].inputSchema), `${t}: inputSchema ${j(tools[t].inputSchema)}`);
    check(isObjectSchema(tools.scheme_eval.outputSchema), `scheme_eval: outputSchema ${j(tools.scheme_eval.outputSchema)}`);
    const desc = tools.scheme_eval.description ?? '';
    check(desc.includes('issue.claim_next'), 'scheme_eval description does not mention issue.claim_next');
    check(desc.length < 11000, `scheme_eval description is ${desc.length} chars (want < 11000)`);
    check((tools.scheme_eval.inputSchema.required ?? []).includes('program'), 'scheme_eval: `program` not required');
  }],
  ['resources', async (c) => {
    const uris = (await c.listResources(undefined, CALL_TIMEOUT)).resources.map((r) => r.uri);
    check(uris.includes('tusk://actions') && uris.includes('tusk://prelude'), `resources: ${uris}`);
    const a = (await c.readResource({ uri: 'tusk://actions' }, CALL_TIMEOUT)).contents[0];
    check(a?.mimeType === 'application/json', `tusk://actions mimeType ${j(a?.mimeType)}`);
    check(JSON.stringify(JSON.parse(a.text)).includes('issue.claim_next'), 'tusk://actions lacks issue.claim_next');
    const p = (await c.readResource({ uri: 'tusk://prelude' }, CALL_TIMEOUT)).contents[0];
    check(typeof p?.text === 'string' && p.text.includes('(define'), 'tusk://prelude is not Scheme source');
  }],
  ['eval_read', async (c) => {
    const sc = await evalOk(c, '(issue.ready)');
    check(sc.effects.length === 1 && sc.effects[0].action === 'issue.ready', `effects ${j(sc.effects)}`);
    check(sc.effects[0].resultClass === 'accepted', `resultClass ${j(sc.effects[0].resultClass)}`);
  }],
  ['eval_value', async (c) => {
    const sc = await evalOk(c, '(+ 1 2)');
    check(sc.value === 3, `(+ 1 2) value ${j(sc.value)}`);
  }],
  ['mutation_no_authority', async (c) => {
    const sc = await evalRejected(c, claim('agent.ts.none'));
    check(sc.failureClasses.includes('mutation.use_evidence_missing'), `failureClasses ${j(sc.failureClasses)}`);
  }],
  ['mutation_authority_in_call', async (c) => {
    const sc = await evalOk(c, claim('agent.ts.call'), { policyDigest: digest(), instructionRef: INSTR, detail: 'full' });
    const e = sc.effects[0];
    check(e.resultClass === 'accepted' && e.payload?.claimed === true, `effect ${j(e)}`);
  }],
  ['mutation_authority_flags', async () => {
    await withServer(['--policy-digest', digest(), '--instruction-ref', 'instr://tests/mcp/ts-flags'], async (c) => {
      const e = (await evalOk(c, claim('agent.ts.flags'), { detail: 'full' })).effects[0];
      check(e.resultClass === 'accepted' && e.payload?.claimed === true, `effect ${j(e)}`);
    });
  }],
  ['describe_actions', async (c) => {
    let r = await call(c, 'describe_actions', { ids: ['issue.claim'] });
    check(!r.isError, `ids: ${show(r)}`);
    const acts = r.structuredContent.actions;
    check(acts.length === 1 && acts[0].id === 'issue.claim', `ids=[issue.claim] gave ${j(acts.map((a) => a.id))}`);
    const a = acts[0];
    check(a.kind === 'mutation', `kind ${j(a.kind)}`);
    check(isObjectLike(a.args) && isObjectLike(a.payload), `args/payload not JSON Schema objects: ${j(a)}`);
    check(typeof a.description === 'string' && a.description && Array.isArray(a.failureClasses) && a.example, `fields: ${j(a)}`);
    r = await call(c, 'describe_actions', { query: 'lease' });
    const found = r.structuredContent.actions;
    const ids = found.map((x) => x.id);
    check(ids.includes('issue.lease_release') && ids.includes('issue.lease_renew'), `query=lease gave ${j(ids)}`);
    const stray = found.filter((x) => !`${x.id} ${x.description ?? ''}`.toLowerCase().includes('lease')).map((x) => x.id);
    check(!stray.length && !ids.includes('dep.add'), `query=lease matched actions that never mention a lease: ${j(stray.length ? stray : ids)}`);
  }],
  ['session_lifecycle_and_replay', async (c) => {
    let r = await call(c, 'session_open', {});
    check(!r.isError, `session_open: ${show(r)}`);
    const sid = r.structuredContent.sessionId;
    check(typeof sid === 'string' && sid, `sessionId ${j(sid)}`);
    await evalOk(c, '(define x 41)', { sessionId: sid });
    const sc = await evalOk(c, '(+ x 1)', { sessionId: sid });
    check(sc.value === 42, `(+ x 1) in session gave ${j(sc.value)}`);
    check(sc.sessionId === sid, `sessionId in result ${j(sc.sessionId)}`);
    r = await call(c, 'session_close', { sessionId: sid });
    check(!r.isError && r.structuredContent?.closed === true && r.structuredContent.sessionId === sid, `session_close: ${j(r)}`);
    r = await call(c, 'scheme_eval', { program: '(+ x 1)', sessionId: sid });
    check(r.isError, `eval in a closed session: ${show(r)}`);
    check(texts(r).join(' ').toLowerCase().includes('session'), `closed-session error does not say so: ${j(texts(r))}`);
    const p = tusk('replay', '--effects', EFFECTS, '--session', sid);
    check(p.status === 0, `\`tusk replay --session ${sid}\` exited ${p.status}: ${replayFailure(p)}`);
  }],
  ['unknown_session', async (c) => {
    const r = await call(c, 'scheme_eval', { program: '(+ 1 2)', sessionId: 'no-such-session' });
    check(r.isError, `unknown session: ${show(r)}`);
    const t = texts(r).join(' ').toLowerCase();
    check(['unknown', 'not found', 'no such', 'expired'].some((w) => t.includes(w)), `text does not say so: ${j(texts(r))}`);
  }],
  ['session_expired', async () => {
    await withServer(['--session-ttl-seconds', '1'], async (c) => {
      const r0 = await call(c, 'session_open', {});
      check(!r0.isError, `session_open: ${show(r0)}`);
      const sid = r0.structuredContent.sessionId;
      await evalOk(c, '(define y 1)', { sessionId: sid });
      await sleep(2500);
      const r = await call(c, 'scheme_eval', { program: 'y', sessionId: sid });
      check(r.isError, `expired session still usable: ${show(r)}`);
      const t = texts(r).join(' ').toLowerCase();
      check(t.includes('expired') || t.includes('unknown'), `text does not mention expired/unknown: ${j(texts(r))}`);
    });
  }],
  ['concurrent_ten', async (c) => {
    const rs = await Promise.all([...Array(10).keys()].map((i) => call(c, 'scheme_eval', { program: `(* ${i} ${i})` })));
    rs.forEach((r, i) => {
      check(!r.isError, `call ${i}: ${show(r)}`);
      check(r.structuredContent.value === i * i, `call ${i}: value ${j(r.structuredContent.value)}`);
    });
    check(new Set(rs.map((r) => r.structuredContent.runId)).size === 10, 'runIds are not distinct');
  }],
  ['same_issue_serialized', async (c) => {
    const rs = await Promise.all([0, 1].map(() => call(c, 'scheme_eval', { program: SPIN, issueId: 'bd-1' })));
    for (const r of rs) check(!r.isError, `spin run: ${show(r)}`);
    const [a, b] = rs.map((r) => r.structuredContent.runId);
    const rows = effectLog();
    const ia = rows.flatMap((row, n) => (row.runId === a ? [n] : []));
    const ib = rows.flatMap((row, n) => (row.runId === b ? [n] : []));
    check(ia.length >= 3 && ib.length >= 3, `want >= 3 log rows per run, got ${ia.length} and ${ib.length}`);
    check(Math.max(...ia) < Math.min(...ib) || Math.max(...ib) < Math.min(...ia), `rows interleave: ${j(ia)} vs ${j(ib)}`);
  }],
  ['crash_then_ok', async (c) => {
    const sc = await evalRejected(c, CRASH);
    check(sc.failureClasses.includes('scheme_eval.worker_crashed'), `failureClasses ${j(sc.failureClasses)}`);
    check((await evalOk(c, '(+ 1 2)')).value === 3, 'the call after the crash did not give 3');
  }],
  ['read_only', async () => {
    await withServer(['--read-only'], async (c) => {
      await evalRejected(c, claim('agent.ts.ro'), { policyDigest: digest(), instructionRef: INSTR });
      await evalOk(c, '(issue.ready)');
    });
  }],
  ['direct_tools', async () => {
    await withServer(['--direct-tools'], async (c) => {
      const tools = Object.fromEntries((await c.listTools(undefined, CALL_TIMEOUT)).tools.map((t) => [t.name, t]));
      const want = ['issue_ready', 'issue_list', 'issue_claim', 'issue_claim_next', 'dep_add'];
      const missing = want.filter((t) => !(t in tools));
      check(!missing.length, `missing direct tools: ${missing}`);
      const r = await call(c, 'issue_ready', {});
      check(!r.isError, `issue_ready: ${show(r)}`);
      const env = r.structuredContent;
      check(env?.schema === 'premath.host_effect.v0', `issue_ready schema ${j(env?.schema)}`);
      const e = (await evalOk(c, '(issue.ready)', { detail: 'full' })).effects[0];
      for (const k of ['action', 'resultClass', 'payload']) {
        check(j(env[k], 1e6) === j(e[k], 1e6), `issue_ready ${k} differs: ${j(env[k], 200)} vs ${j(e[k], 200)}`);
      }
      const r2 = await call(c, 'issue_claim_next', { assignee: 'agent.ts.direct' });
      check(r2.isError && r2.structuredContent?.resultClass === 'mutation.use_evidence_missing', `unauthorised claim: ${show(r2)}`);
    });
  }],
  ['http_transport', async () => {
    await withHttpServer([], async (c) => {
      const tools = (await c.listTools(undefined, CALL_TIMEOUT)).tools.map((t) => t.name);
      check(tools.includes('scheme_eval'), `tools/list over HTTP: ${j(tools)}`);
      const sc = await evalOk(c, '(+ 1 2)');
      check(sc.value === 3, `(+ 1 2) over HTTP gave ${j(sc.value)}`);
      const r = await call(c, 'session_open', {});
      check(!r.isError, `session_open over HTTP: ${show(r)}`);
      const sid = r.structuredContent.sessionId;
      await evalOk(c, '(define h 41)', { sessionId: sid });
      const sc2 = await evalOk(c, '(+ h 1)', { sessionId: sid });
      check(sc2.value === 42 && sc2.sessionId === sid, `session over HTTP: value ${j(sc2.value)} sessionId ${j(sc2.sessionId)}`);
      const r2 = await call(c, 'session_close', { sessionId: sid });
      check(!r2.isError, `session_close over HTTP: ${show(r2)}`);
    });
  }],
  ['http_refuses_remote', async () => {
    const p = tusk('mcp', '--http', '0.0.0.0:0');
    check(p.status !== 0, `\`tusk mcp --http 0.0.0.0:0\` exited ${p.status} (stderr ${j(p.stderr.trim())})`);
    check(p.stderr.includes('not a loopback address'), `stderr does not say 'not a loopback address': ${j(p.stderr.trim())}`);
  }],
  ['shared_tokens_and_sessions', async () => {
    const tokens = path.join(WORK, 'ts-tokens.json');
    const d = digest();
    fs.writeFileSync(tokens, JSON.stringify({ tokens: [
      { sha256: await sha256('ts-a'), principal: 'ts.a', policyDigest: d, instructionRef: INSTR },
      { sha256: await sha256('ts-b'), principal: 'ts.b', readOnly: true },
    ] }));
    const srv = await startHttp(['--auth', tokens]);
    try {
      const bare = await fetch(srv.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
      check(bare.status === 401 && (bare.headers.get('www-authenticate') ?? '').startsWith('Bearer'), `no token: ${bare.status} ${bare.headers.get('www-authenticate')}`);
      const a = await httpClient(srv.url, 'ts-a');
      const b = await httpClient(srv.url, 'ts-b');
      try {
        const sid = (await call(a, 'session_open', {})).structuredContent.sessionId;
        await evalOk(a, '(define mine 1)', { sessionId: sid });
        const r = await call(b, 'scheme_eval', { program: 'mine', sessionId: sid });
        check(r.isError && texts(r).join(' ').includes('unknown or expired session'), `B used A's session: ${show(r)}`);
        const sc = await evalOk(a, '(+ mine 1)', { sessionId: sid });
        check(sc.value === 2, `A's session: ${j(sc)}`);
        const tools = (await b.listTools(undefined, CALL_TIMEOUT)).tools;
        const ev = tools.find((t) => t.name === 'scheme_eval');
        check(ev.annotations?.readOnlyHint === true && ev.annotations?.destructiveHint === false, `read-only principal's annotations ${j(ev.annotations)}`);
        const denied = await evalRejected(b, '(issue.close (hash "id" "bd-1"))');
        check(j(denied.failureClasses) === j(['authority.read_only']), `read-only principal: ${j(denied.failureClasses)}`);
      } finally {
        await a.close().catch(() => {});
        await b.close().catch(() => {});
      }
    } finally {
      await srv.stop();
    }
    const headers = effectLog().filter((r) => r.kind === 'premath.scheme_eval.run.v0' && (r.principal === 'ts.a' || r.principal === 'ts.b'));
    check(headers.length >= 3, `principals recorded: ${headers.length}`);
  }],
  ['cancel_progress_and_narrowing', async () => {
    await withServer(['--timeout-ms', '20000'], async (c) => {
      const program = '(issue.ready) (let loop ((i 0)) (if (< i 400000000) (loop (+ i 1)) i))';
      const ac = new AbortController();
      const seen = [];
      const started = Date.now();
      setTimeout(() => ac.abort(), 500);
      let aborted = false;
      try {
        await c.callTool({ name: 'scheme_eval', arguments: { program } }, undefined, { signal: ac.signal, timeout: 30000, onprogress: (p) => seen.push(p) });
      } catch {
        aborted = true;
      }
      check(aborted && Date.now() - started < 2000, 'the call was not aborted');
      check(seen.length === 1 && seen[0].progress === 1 && String(seen[0].message).includes('issue.ready'), `progress ${j(seen)}`);
      let footer = null;
      for (let i = 0; i < 100 && !footer; i++) {
        const log = effectLog();
        const run = log.find((r) => r.kind === 'premath.scheme_eval.run.v0' && r.program === program);
        footer = run && log.find((r) => r.kind === 'premath.scheme_eval.run_end.v0' && r.runId === run.runId);
        if (!footer) await sleep(20);
      }
      check(footer && j(footer.failureClasses) === j(['scheme_eval.interrupted']), `footer ${j(footer)}`);
      check(Date.parse(footer.finishedAt) - started < 1500, `the run went on to ${footer.finishedAt}`);
      const r = await evalRejected(c, '(issue.list)', { actions: ['issue.ready'] });
      check(j(r.failureClasses) === j(['scheme_eval.effect_denied']), `narrowing: ${j(r.failureClasses)}`);
    });
  }],
  ['replay_whole_log', async () => {
    const p = tusk('replay', '--effects', EFFECTS, '--timeout-ms', '20000');
    check(p.status === 0, `\`tusk replay\` exited ${p.status}: ${replayFailure(p)}`);
  }],
  ['stdout_protocol_only', async () => {
    check(!streamErrors.length, `client/transport errors: ${j(streamErrors.slice(0, 3), 600)}`);
  }],
];

function isObjectLike(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function withTimeout(promise, ms) {
  let t;
  const timer = new Promise((_, reject) => {
    t = setTimeout(() => reject(new Fail(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timer]).finally(() => clearTimeout(t));
}

async function main() {
  fs.mkdirSync(WORK, { recursive: true });
  let passed = 0;
  let failed = 0;
  const report = (name, err) => {
    if (!err) {
      passed += 1;
      console.log(`ok ${name}`);
    } else {
      failed += 1;
      console.log(`FAIL ${name}: ${String(err?.message ?? err).replace(/\n/g, ' ')}`);
      if (!(err instanceof Fail) && err?.stack) console.error(err.stack);
    }
  };

  try {
    for (let n = 1; n <= 5; n++) {
      const p = tusk('issue', 'add', `Seed issue ${n}`, '--json');
      check(p.status === 0, `\`tusk issue add\` exited ${p.status}: ${p.stderr.trim()}`);
      JSON.parse(p.stdout);
    }
    digest();
  } catch (e) {
    report('seed', e);
    console.log(`${passed} passed, ${failed} failed`);
    return 1;
  }

  let c = null;
  try {
    c = await withTimeout(connect(), 30000);
    console.error(`# connected: server ${j(c.getServerVersion())}`);
  } catch (e) {
    report('connect', e);
  }
  if (c) {
    for (const [name, fn] of SCENARIOS) {
      let err = null;
      try {
        await withTimeout(fn(c), 45000);
      } catch (e) {
        err = e;
      }
      report(name, err);
    }
    await c.close().catch(() => {});
  }

  if (failed) {
    for (const p of stderrLogs) {
      try {
        console.error(`--- ${p} (tail) ---\n${fs.readFileSync(p, 'utf8').slice(-3000)}`);
      } catch {
        /* ignore */
      }
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
