// A release desk on the OpenAI Agents SDK for JS, written the way a team
// writes one: a coordinator that asks a researcher agent — as a tool,
// several at once — and hands the conversation off to a writer agent.
//
// The agentsnap part is a few lines (marked "agentsnap:"): the OpenAI client
// sends each call through lineageFetch; the researcher tool is wrapped in
// childTool, so each of its runs is a child session named by the tool call
// that asked for it; and the release notes, which come from a service whose
// answers change, are a recorded tool (recordedTool): serve records what the
// service said, and a replay hands it back without asking. A handoff needs
// nothing: the writer goes on with the same conversation, so it is the same
// session under another prompt.
//
// usage: node agent.mjs BASE_URL SCENARIO_DIR
//   (or AGENTSNAP_BASE_URL and AGENTSNAP_SCENARIO in the environment)
// It runs the prompts of SCENARIO_DIR/scenario.json as the conversation's
// turns and prints the answers.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool, user } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { childTool, lineageFetch, recordedTool } from 'agentsnap-lineage';

const MODEL = 'gpt-4.1-mini';

const NOTES = {
  'v2.4': 'v2.4 (March): SSO login, audit log export.',
  'v2.5': 'v2.5 (June): offline mode, 30% faster sync, drops the legacy v1 API.',
};

// releaseNotes reads one release's notes from the notes service (NOTES
// stands for it) through agentsnap serve at baseURL.
function releaseNotes(baseURL) {
  return tool({
    name: 'release_notes',
    description: 'The release notes of one version, such as v2.4.',
    parameters: z.object({ version: z.string() }),
    execute: async ({ version }, _runContext, details) => {
      // agentsnap: a recorded tool; the notes service is asked only while recording.
      const call = { id: details?.toolCall?.callId, name: 'release_notes', arguments: { version } };
      const notes = await recordedTool(call, () => NOTES[version] ?? `no release notes for ${version}`, { baseURL });
      return notes.text;
    },
  });
}

// buildAgents returns the coordinator, the agent every turn starts with.
// settings (scenario.json's "agent") may replace any agent's instructions;
// baseURL is agentsnap serve's.
export function buildAgents(baseURL, settings = {}) {
  const researcher = new Agent({
    name: 'Researcher',
    model: MODEL,
    instructions: settings.researcher ?? 'You research one release: read its notes with release_notes and answer in one sentence.',
    tools: [releaseNotes(baseURL)],
  });
  const writer = new Agent({
    name: 'Writer',
    model: MODEL,
    handoffDescription: 'Writes the customer announcement once the facts are in.',
    instructions: settings.writer ?? 'You write short, friendly release announcements from the facts in the conversation.',
  });
  return new Agent({
    name: 'Coordinator',
    model: MODEL,
    instructions:
      settings.coordinator ??
      'You run the release desk. Ask the research tool about each release you need (several at once when you can), then hand off to the writer for any announcement.',
    tools: [
      // agentsnap: each research run is a child session, named by its tool call.
      childTool(researcher.asTool({ toolName: 'research', toolDescription: 'Ask a researcher about one release.' })),
    ],
    handoffs: [writer],
  });
}

async function main() {
  const baseURL = process.argv[2] ?? process.env.AGENTSNAP_BASE_URL;
  const dir = process.argv[3] ?? process.env.AGENTSNAP_SCENARIO;
  if (!baseURL || !dir) {
    console.error('usage: node agent.mjs BASE_URL SCENARIO_DIR (or set AGENTSNAP_BASE_URL and AGENTSNAP_SCENARIO)');
    process.exit(2);
  }
  const scenario = JSON.parse(await readFile(path.join(dir, 'scenario.json'), 'utf8'));
  // agentsnap: the client names each call's session; serve needs no key.
  setDefaultOpenAIClient(new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0, fetch: lineageFetch() }));
  // scenario.json's "agent": {"api": "responses"} keeps the SDK's default,
  // the Responses API, and goes on from the last turn by its response id.
  const responses = scenario.agent?.api === 'responses';
  if (!responses) setOpenAIAPI('chat_completions');
  setTracingDisabled(true); // traces would go to api.openai.com
  const coordinator = buildAgents(baseURL, scenario.agent);
  let history = [];
  let last;
  for (const prompt of scenario.prompts) {
    const result = responses
      ? await run(coordinator, prompt, { stream: true, previousResponseId: last?.lastResponseId })
      : await run(coordinator, [...history, user(prompt)], { stream: true });
    for await (const text of result.toTextStream()) process.stdout.write(text);
    await result.completed;
    process.stdout.write('\n');
    history = result.history;
    last = result;
  }
}

main().catch((err) => {
  console.error(`agent: ${err.stack ?? err.message}`);
  process.exit(1);
});
