// A release desk on the Vercel AI SDK, written the way a team writes one:
// streamText in a multi-step tool loop, with a research tool that asks
// another model — streamText again, with its own tool loop — so one step
// may ask two researchers at once.
//
// The agentsnap part is three lines (marked "agentsnap:"): the provider
// sends each call through lineageFetch; the research tool is wrapped in
// childTool, so each of its runs is a child session named by the tool call
// (its toolCallId) that asked for it; and the release notes, which come
// from a service whose answers change, are a recorded tool (recordedTool):
// serve records what the service said, and a replay hands it back without
// asking.
//
// usage: node agent.mjs BASE_URL SCENARIO_DIR [API]
//   (or AGENTSNAP_BASE_URL, AGENTSNAP_SCENARIO and AGENT_API in the environment)
// It runs the prompts of SCENARIO_DIR/scenario.json as the conversation's
// turns and prints the answers. API picks the provider package and the
// model API it speaks: chat (the default: @ai-sdk/openai's Chat
// Completions), responses (@ai-sdk/openai's default, the Responses API),
// anthropic (@ai-sdk/anthropic, Messages) or google (@ai-sdk/google, the
// Gemini API). The desk is the same in each; only its model changes.
import { appendFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { childTool, lineageFetch, recordedTool } from 'agentsnap-lineage';

// MODELS is the model the desk names in each API (recording live, serve
// calls its --model whatever the agent names).
const MODELS = {
  chat: 'gpt-4.1-mini',
  responses: 'gpt-4.1-mini',
  anthropic: 'claude-sonnet-4-5',
  google: 'gemini-2.5-flash',
};

// modelFor returns the desk's model in api, its provider sending each call
// through fetch to baseURL (serve's; each package appends its API's path).
// serve needs no key; a provider wants one all the same.
export function modelFor(api, baseURL, fetch) {
  switch (api) {
    case 'chat':
      return createOpenAI({ baseURL, apiKey: 'unused', fetch }).chat(MODELS.chat);
    case 'responses':
      return createOpenAI({ baseURL, apiKey: 'unused', fetch })(MODELS.responses); // the provider's default: provider.responses(...)
    case 'anthropic':
      return createAnthropic({ baseURL, apiKey: 'unused', fetch })(MODELS.anthropic);
    case 'google':
      return createGoogleGenerativeAI({ baseURL, apiKey: 'unused', fetch })(MODELS.google);
    default:
      throw new Error(`unknown API ${JSON.stringify(api)}: want one of ${Object.keys(MODELS).join(', ')}`);
  }
}

const NOTES = {
  'v2.4': 'v2.4 (March): SSO login, audit log export.',
  'v2.5': 'v2.5 (June): offline mode, 30% faster sync, drops the legacy v1 API.',
};

// releaseNotes reads one release's notes from the notes service (NOTES
// stands for it) through agentsnap serve at baseURL.
function releaseNotes(baseURL) {
  return tool({
    description: 'The release notes of one version, such as v2.4.',
    inputSchema: z.object({ version: z.string() }),
    execute: async ({ version }, { toolCallId }) => {
      // agentsnap: a recorded tool; the notes service is asked only while recording.
      const notes = await recordedTool({ id: toolCallId, name: 'release_notes', arguments: { version } }, () => NOTES[version] ?? `no release notes for ${version}`, { baseURL });
      return notes.text;
    },
  });
}

// desk returns the agent's instructions and tools around model (the
// coordinator's and the researchers'); settings (scenario.json's "agent")
// may replace its instructions ("coordinator", "researcher"), and
// "researcherStream": false has the researchers ask for whole answers
// (generateText). baseURL is agentsnap serve's.
export function desk(model, baseURL, settings = {}) {
  const research = tool({
    description: 'Ask a researcher about one release; it reads the release notes.',
    inputSchema: z.object({ question: z.string() }),
    execute: async ({ question }, { abortSignal }) => {
      const call = {
        model,
        instructions: settings.researcher ?? 'You research one release: read its notes with release_notes and answer in one sentence.',
        prompt: question,
        tools: { release_notes: releaseNotes(baseURL) },
        stopWhen: stepCountIs(4),
        abortSignal,
      };
      if (settings.researcherStream === false) return (await generateText(call)).text;
      return await streamText(call).text;
    },
  });
  return {
    instructions: settings.coordinator ?? 'You run the release desk. Ask the research tool about each release you need, several at once when you can, then answer briefly.',
    // agentsnap: each research run is a child session, named by its tool call.
    tools: { research: childTool(research) },
  };
}

// timedFetch is a test hook, used only when AGENT_ATTEMPTS_LOG names a file
// (the Go specs set it): each HTTP attempt of a model call appends a line to
// it, {session, status, start, end} (ms), so a spec sees the SDK's retries
// and how long it waited before each.
function timedFetch(file) {
  return async (url, init) => {
    const start = Date.now();
    const res = await fetch(url, init);
    const session = new Headers(init?.headers).get('agentsnap-session');
    appendFileSync(file, `${JSON.stringify({ session, status: res.status, start, end: Date.now() })}\n`);
    return res;
  };
}

async function main() {
  const baseURL = process.argv[2] ?? process.env.AGENTSNAP_BASE_URL;
  const dir = process.argv[3] ?? process.env.AGENTSNAP_SCENARIO;
  if (!baseURL || !dir) {
    console.error('usage: node agent.mjs BASE_URL SCENARIO_DIR [chat|responses|anthropic|google] (or set AGENTSNAP_BASE_URL, AGENTSNAP_SCENARIO and AGENT_API)');
    process.exit(2);
  }
  const api = process.argv[4] ?? process.env.AGENT_API ?? 'chat';
  const scenario = JSON.parse(await readFile(path.join(dir, 'scenario.json'), 'utf8'));
  // agentsnap: the provider names each call's session.
  const attempts = process.env.AGENT_ATTEMPTS_LOG;
  const model = modelFor(api, baseURL, lineageFetch(attempts ? timedFetch(attempts) : undefined));
  const { instructions, tools } = desk(model, baseURL, scenario.agent);
  const messages = [];
  for (const prompt of scenario.prompts) {
    messages.push({ role: 'user', content: prompt });
    const result = streamText({ model, instructions, messages, tools, stopWhen: stepCountIs(5), maxRetries: 0 });
    for await (const text of result.textStream) process.stdout.write(text);
    process.stdout.write('\n');
    messages.push(...(await result.responseMessages)); // every step's messages: the tool calls and results too
  }
}

main().catch((err) => {
  console.error(`agent: ${err.stack ?? err.message}`);
  process.exit(1);
});
