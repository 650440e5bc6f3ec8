// A small agent on the official openai npm package, written the way a team
// writes one: a loop that streams chat completions, runs its tools, and
// delegates to subagents — several at once. The only agentsnap part is
// that each model call names its session in the Agentsnap-* headers, so
// `agentsnap serve` can replay (or record) every session of the tree.
//
// usage: node agent.mjs BASE_URL SCENARIO_DIR
//   (or AGENTSNAP_BASE_URL and AGENTSNAP_SCENARIO in the environment)
// It runs the prompts of SCENARIO_DIR/scenario.json as the root's turns
// and prints the root's answers. Its "agent" settings: "system", the
// system prompt; "stream": false asks for whole answers instead of streams.
import { appendFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import OpenAI from 'openai';

const MODEL = 'gpt-4o-mini';

const FACTS = { release: 'v2.4.1', owner: 'team-atlas', region: 'eu-west-1' };

const TOOLS = [
  tool('lookup', 'Look up a fact by key.', 'key'),
  tool('subagent_spawn', 'Delegate to a fresh subagent that knows only its prompt.', 'prompt'),
  tool('subagent_fork', 'Delegate to a subagent that knows this conversation so far.', 'prompt'),
];

function tool(name, description, field) {
  return {
    type: 'function',
    function: {
      name,
      description,
      parameters: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] },
    },
  };
}

// Session is one conversation of the tree: the root, or a child created by
// a tool call of its parent.
class Session {
  constructor(agent, { id, parent, callId, mode, messages = [] }) {
    this.agent = agent;
    this.id = id;
    this.parent = parent;
    this.callId = callId;
    this.mode = mode;
    this.messages = messages;
    this.completed = messages.length; // messages of its completed turns: what a fork inherits
    this.childIds = new Map(); // call id -> children created by it, for unique session ids
  }

  // headers name this session to agentsnap serve; an endpoint that does
  // not know them ignores them.
  headers() {
    const h = { 'Agentsnap-Session': this.id };
    if (this.parent) {
      h['Agentsnap-Parent'] = this.parent.id;
      h['Agentsnap-Call'] = this.callId;
      h['Agentsnap-Mode'] = this.mode;
    }
    return h;
  }

  // turn runs one user turn: call the model, run the tools it asks for,
  // send their results back in call order, until it answers without tools.
  async turn(prompt) {
    this.messages.push({ role: 'user', content: prompt });
    for (;;) {
      const message = await this.ask();
      this.messages.push(message);
      if (!message.tool_calls) {
        this.completed = this.messages.length;
        return message.content ?? '';
      }
      // Children run at the same time; the results go back in call order.
      const results = await Promise.all(message.tool_calls.map((call) => this.run(call)));
      message.tool_calls.forEach((call, i) => {
        this.messages.push({ role: 'tool', tool_call_id: call.id, content: results[i] });
      });
    }
  }

  // ask makes one model call and returns the assistant message it answered,
  // streamed or whole.
  async ask() {
    const body = {
      model: MODEL,
      messages: [{ role: 'system', content: this.agent.system }, ...this.messages],
      tools: TOOLS,
    };
    const options = { headers: this.headers() };
    const { completions } = this.agent.client.chat;
    if (this.agent.stream) {
      return assemble(await completions.create({ ...body, stream: true }, options));
    }
    const { message } = (await completions.create(body, options)).choices[0];
    return reply(message.content, message.tool_calls ?? []);
  }

  async run(call) {
    let args;
    try {
      args = JSON.parse(call.function.arguments || '{}');
    } catch (err) {
      return `bad arguments: ${err.message}`;
    }
    switch (call.function.name) {
      case 'lookup':
        return FACTS[args.key] ?? `no fact named ${JSON.stringify(args.key)}`;
      case 'subagent_spawn':
      case 'subagent_fork': {
        const fork = call.function.name === 'subagent_fork';
        const child = new Session(this.agent, {
          id: this.childId(call.id),
          parent: this,
          callId: call.id,
          mode: fork ? 'fork' : 'spawn',
          // A fork inherits the conversation up to the last completed turn.
          messages: fork ? this.messages.slice(0, this.completed) : [],
        });
        try {
          return await child.turn(args.prompt);
        } catch (err) {
          return `the subagent failed: ${err.message}`;
        }
      }
      default:
        return `unknown tool ${call.function.name}`;
    }
  }

  // childId is the session id of the child that call creates: unique even
  // when a model reuses a call id in a later step.
  childId(callId) {
    const n = (this.childIds.get(callId) ?? 0) + 1;
    this.childIds.set(callId, n);
    return `${this.id}/${callId}${n > 1 ? `#${n}` : ''}`;
  }
}

// assemble reads a streamed answer into the assistant message sent back.
async function assemble(stream) {
  let content = '';
  const calls = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    if (!delta) continue; // the usage chunk
    if (delta.content) content += delta.content;
    for (const d of delta.tool_calls ?? []) {
      const call = (calls[d.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (d.id) call.id = d.id;
      if (d.function?.name) call.function.name += d.function.name;
      if (d.function?.arguments) call.function.arguments += d.function.arguments;
    }
  }
  return reply(content, calls);
}

// reply is the assistant message sent back: its text, its tool calls.
function reply(content, calls) {
  const message = { role: 'assistant', content: content || null };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

// timedFetch is a test hook, used only when AGENT_ATTEMPTS_LOG names a file
// (the Go specs set it): each HTTP attempt the SDK makes appends a line to
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
    console.error('usage: node agent.mjs BASE_URL SCENARIO_DIR (or set AGENTSNAP_BASE_URL and AGENTSNAP_SCENARIO)');
    process.exit(2);
  }
  const scenario = JSON.parse(await readFile(path.join(dir, 'scenario.json'), 'utf8'));
  const attempts = process.env.AGENT_ATTEMPTS_LOG;
  const agent = {
    // agentsnap serve needs no key; the SDK wants one. The SDK retries as
    // it does by default: serve answers a failure it replays so that the
    // SDK retries at once, and one it makes itself so that it does not.
    client: new OpenAI({ baseURL, apiKey: 'unused', fetch: attempts ? timedFetch(attempts) : undefined }),
    system: scenario.agent?.system ?? 'You are a helpful agent.',
    stream: scenario.agent?.stream ?? true,
  };
  const root = new Session(agent, { id: 'root' });
  for (const prompt of scenario.prompts) {
    console.log(await root.turn(prompt));
  }
}

main().catch((err) => {
  console.error(`agent: ${err.message}`);
  process.exit(1);
});
