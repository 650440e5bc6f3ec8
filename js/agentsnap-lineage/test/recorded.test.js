import assert from 'node:assert/strict';
import { test } from 'node:test';
import { child, recordedTool } from '../index.js';

// fakeServe answers the recorded-tool endpoint as agentsnap serve does:
// while recording, "run" to a call without output, then the output back;
// in a replay, the recorded output. It keeps what it was sent.
function fakeServe({ recording, recorded = { text: 'recorded' }, status = 200, error, id } = {}) {
  const got = [];
  const fetch = async (url, init) => {
    const body = JSON.parse(init.body);
    got.push({ url, headers: Object.fromEntries(new Headers(init.headers)), body });
    if (status !== 200) return new Response(JSON.stringify({ error: { message: error } }), { status });
    if (!recording) return Response.json({ output: recorded });
    return Response.json(body.output ? { output: body.output } : { run: true, ...(id ? { id } : {}) });
  };
  return { got, fetch };
}

const baseURL = 'http://127.0.0.1:41234/v1';

test('while recording, asks, runs the tool and sends its output, on serve\'s address', async () => {
  const s = fakeServe({ recording: true, id: 'call_7' });
  let runs = 0;
  const out = await recordedTool({ name: 'clock', arguments: { zone: 'UTC' } }, () => (runs++, '12:00'), { baseURL, fetch: s.fetch });
  assert.deepEqual(out, { text: '12:00', isError: false });
  assert.equal(runs, 1);
  assert.equal(s.got.length, 2);
  assert.equal(s.got[0].url, 'http://127.0.0.1:41234/agentsnap/tool', 'the base URL\'s path does not matter');
  assert.deepEqual(s.got[0].body, { name: 'clock', arguments: '{"zone":"UTC"}' });
  assert.deepEqual(s.got[1].body, { name: 'clock', arguments: '{"zone":"UTC"}', id: 'call_7', output: { text: '12:00' } }, 'with the id serve named');
  assert.equal(s.got[0].headers['content-type'], 'application/json');
});

test('in a replay, hands back the recorded output and does not run the tool', async () => {
  const s = fakeServe({ recording: false, recorded: { text: 'boom', isError: true } });
  const out = await recordedTool({ id: 'call_1', name: 'clock', arguments: '{}' }, () => assert.fail('the replay ran the tool'), { baseURL, fetch: s.fetch });
  assert.deepEqual(out, { text: 'boom', isError: true });
  assert.equal(s.got.length, 1);
  assert.deepEqual(s.got[0].body, { name: 'clock', arguments: '{}', id: 'call_1' });
});

test('records what the tool throws, or says is an error, as an error result', async () => {
  for (const run of [() => { throw new Error('the API is down'); }, async () => ({ text: 'the API is down', isError: true })]) {
    const s = fakeServe({ recording: true });
    const out = await recordedTool({ name: 'tickets', arguments: '{}' }, run, { baseURL, fetch: s.fetch });
    assert.deepEqual(out, { text: 'the API is down', isError: true });
    assert.deepEqual(s.got[1].body.output, { text: 'the API is down', isError: true });
  }
});

test('records another value as its String, and names serve\'s address when it cannot be reached', async () => {
  const s = fakeServe({ recording: true });
  const out = await recordedTool({ name: 'count' }, () => 42, { baseURL, fetch: s.fetch });
  assert.deepEqual(out, { text: '42', isError: false });
  const down = async () => { throw new TypeError('fetch failed'); };
  await assert.rejects(recordedTool({ name: 'count' }, () => 1, { baseURL, fetch: down }), /POST http:\/\/127\.0\.0\.1:41234\/agentsnap\/tool: fetch failed; is agentsnap serve running there\?/);
});

test('names the session in effect', async () => {
  const s = fakeServe({ recording: false });
  await child('call_spawn', 'spawn', () => recordedTool({ name: 'clock' }, () => '', { baseURL, fetch: s.fetch }));
  assert.equal(s.got[0].headers['agentsnap-session'], 'root/call_spawn');
  assert.equal(s.got[0].headers['agentsnap-parent'], 'root');
  assert.equal(s.got[0].headers['agentsnap-call'], 'call_spawn');
  assert.deepEqual(s.got[0].body, { name: 'clock', arguments: '{}' });
});

test('throws serve\'s message for a call that is none of the session\'s last answer\'s, and a TypeError for bad arguments', async () => {
  const s = fakeServe({ status: 400, error: "session root's last answer made no such call (its calls: none)" });
  await assert.rejects(recordedTool({ name: 'clock' }, () => '', { baseURL, fetch: s.fetch }), /serve answered 400: session root's last answer made no such call/);
  await assert.rejects(recordedTool({}, () => '', { baseURL }), { name: 'TypeError', message: /call.name is missing; give the tool call as the model made it/ });
  await assert.rejects(recordedTool({ name: 'clock' }, 'x', { baseURL }), { name: 'TypeError', message: /run is "x"; give the function that runs the tool/ });
  await assert.rejects(recordedTool({ name: 'clock' }, () => '', {}), { name: 'TypeError', message: /baseURL is missing; give agentsnap serve's address/ });
});
