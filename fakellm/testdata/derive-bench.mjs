// derive-bench.mjs derives a session log's replay script the way
// fakellm.Derive does — header, packed rows expanded, events[seedLength:],
// assistant/chunk grouped by (turn, step, attempt), a finish closing each
// call — with Node's JSON.parse line by line. It is the Node side of
// BenchmarkDerive (bench_test.go), which runs it on the same file and checks
// that both sides find the same calls and chunks.
//
// usage: node derive-bench.mjs FILE [ITERATIONS]
// prints {"iterations","ns","cpuns","calls","chunks"}: the total wall and
// CPU time of the iterations measured inside Node (process start excluded).
import { readFileSync } from "node:fs";

const packed = { "text-chunks": "text-delta", "reasoning-chunks": "reasoning-delta", "tool-call-chunks": "tool-call-delta" };

// expand yields the logical events a line stands for.
function* expand(ev) {
  const kind = packed[ev.type];
  if (!kind) {
    yield ev;
    return;
  }
  const d = ev.data;
  const pieces = kind === "tool-call-delta" ? d.args : d.texts;
  for (let i = 0; i < pieces.length; i++) {
    const chunk = { type: kind, index: d.index };
    if (kind === "tool-call-delta") {
      if (i === 0 && d.id !== undefined) chunk.id = d.id;
      if (i === 0 && d.name !== undefined) chunk.name = d.name;
      chunk.argumentsDelta = pieces[i];
    } else {
      chunk.text = pieces[i];
    }
    const data = { turn: d.turn, step: d.step, chunk };
    if (d.attempt !== undefined) data.attempt = d.attempt;
    yield { type: "assistant/chunk", data };
  }
}

function derive(path) {
  const lines = readFileSync(path, "utf8").split("\n");
  const header = JSON.parse(lines[0]);
  if (header.type !== "session") throw new Error(`${path}:1: not a session header`);
  let skip = header.seedLength ?? 0;
  const entries = [];
  let open = null;
  let key = "";
  for (let n = 1; n < lines.length; n++) {
    if (lines[n] === "") continue;
    for (const ev of expand(JSON.parse(lines[n]))) {
      if (skip > 0) {
        skip--;
        continue;
      }
      if (ev.type !== "assistant/chunk") continue;
      const d = ev.data;
      const k = `${d.turn}.${d.step}.${d.attempt ?? 0}`;
      if (open && k !== key) throw new Error(`${path}:${n + 1}: turn ${d.turn} step ${d.step}: previous call has no finish`);
      if (!open) {
        open = { kind: "chunks", turn: d.turn, step: d.step, attempt: d.attempt, chunks: [] };
        key = k;
      }
      open.chunks.push(d.chunk);
      if (d.chunk.type === "finish") {
        entries.push(open);
        open = null;
      }
    }
  }
  if (open) throw new Error(`${path}: the last call has no finish`);
  return entries;
}

const [path, iterArg] = process.argv.slice(2);
const iterations = Number(iterArg ?? 1);
let entries = [];
const cpu0 = process.cpuUsage();
const start = process.hrtime.bigint();
for (let i = 0; i < iterations; i++) entries = derive(path);
const ns = Number(process.hrtime.bigint() - start);
const cpu = process.cpuUsage(cpu0);
const chunks = entries.reduce((sum, e) => sum + e.chunks.length, 0);
console.log(JSON.stringify({ iterations, ns, cpuns: (cpu.user + cpu.system) * 1000, calls: entries.length, chunks }));
