// usage: node recorded-tool.mjs SERVE_BASE_URL
// Runs the root's lookup of "owner" as a recorded tool through agentsnap
// serve with agentsnap-lineage's recordedTool, as a Node agent would —
// then the same call again, which serve refuses (it has run) — and prints
// what each gave, as JSON.
import { recordedTool } from '../../../../js/agentsnap-lineage/index.js';

const [baseURL] = process.argv.slice(2);
const call = { name: 'lookup', arguments: '{"key":"owner"}' };
const got = [];
let runs = 0;
got.push(await recordedTool(call, () => `team-atlas (run ${++runs})`, { baseURL }));
try {
  got.push(await recordedTool(call, () => `again (run ${++runs})`, { baseURL }));
} catch (err) {
  got.push(err.message);
}
console.log(JSON.stringify({ got, runs }));
