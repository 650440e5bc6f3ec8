package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"maps"
	"net"
	"os"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/httpguard"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/apis"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/wire"
)

func init() {
	register(&command{
		name:    "serve",
		args:    "DIR [--addr HOST:PORT] [--runtime NAME] [--lineage explicit|infer] [--record [--live --base-url URL --model M [--api API]] [--only-changed] [--session PATH] [--keep-live-failures] [--pace D] [--replace-golden] [--mcp NAME=URL]...] [--allow-origin ORIGIN]... [--max-body SIZE]",
		summary: "serve a scenario as a model endpoint (OpenAI, Anthropic, Gemini APIs), so an agent in any language replays or records it",
		order:   40,
		detail: `
Serves the scenario in DIR as a model endpoint on a loopback address, so
an agent in another process — in any language, on any OpenAI, Anthropic or
Gemini SDK — replays its fixture: POST .../chat/completions and
.../responses (OpenAI Chat Completions and Responses, previous_response_id
too), .../v1/messages (Anthropic) and Gemini's generateContent, streamed or
whole, and token counts (Anthropic's .../v1/messages/count_tokens, Gemini's
:countTokens: recorded with --record, from the live endpoint with --live
or, from the playbook, as the input tokens it reports for a call of that
request; answered from the recording in a replay).
The first line of the output is the base URL to point the SDK at (on stdout;
notes go to stderr), such as http://127.0.0.1:41234/v1 (Anthropic and Gemini
SDKs take it without /v1). Then run the agent, and stop serve with SIGINT
(Ctrl-C) or SIGTERM when it is done: serve cuts an answer still streaming
(its turn ends aborted) and every connection at once, writes the session
logs from what crossed the wire, compares them with the fixture and the
transcript with transcript.golden as check does, and prints the verdict. The
fixture is judged as serve read it when it started: a log changed on disk
while serve runs is judged as it was, and a session that differs from a log
changed since is an error that says so (run serve again).

An agent with subagents names each call's session in headers:
Agentsnap-Session (an id of its choosing, the same on every call of the
session), and for a child also Agentsnap-Parent (the parent's id),
Agentsnap-Call (the id of the parent's tool call that created it) and
Agentsnap-Mode (spawn or fork). A call without them is the root's (a
child of such a root names its parent "root"). Every call is recorded as
the agent sent it: a conversation it rewrote, truncated or compacted is
kept as sent, and a fork child's seed is its parent's completed turns,
however the child renders them. An agent that names no sessions can be
recorded with --lineage=infer: a call that continues no session is the
child of the one open tool call whose arguments hold its prompt.

--runtime names the agent: a fixture is replayed only under the name that
recorded it (scenario.json recorded.runtime).

serve answers only its own agent. It refuses, by the headers and before
reading the body, a request whose Host is not the address it printed (or
localhost on that port) with 421 — what a web page using DNS rebinding
sends — a request from a web page (an Origin header, or Sec-Fetch-Site
cross-site) with 403, a body that is not JSON (Content-Type
application/json) with 415, and a body larger than --max-body (default
32MiB) with 413; a body that takes longer than 30s to arrive gets 408.
Each refusal is a JSON error whose message says why, and is noted on
stderr. A model call's body that holds no conversation ({}, or no
"messages", "input" or "contents", as the path's API names it) gets 400
naming what is missing, and fails the run. An agent that runs in a browser
names its page's origin with --allow-origin (exact, such as
http://localhost:5173; repeat it for more): serve then answers its CORS
preflights, with the headers the OpenAI, Anthropic and Google SDKs send, and
lets it read the answers.

--record records DIR instead: the answers come from DIR/playbook.json, or
from a live model with --live (--base-url, --model and the key as for
record; every call goes to --model, whatever model the agent names; an
Anthropic agent's anthropic-beta headers and cache_control breakpoints go
with it, and are not recorded, so they are no drift either; the images
and files an agent sends go as sent, and are recorded as digests, so
another image is drift). On
SIGINT the fixture is written all or nothing, as record writes it: a
request that did not fit its session, an unused playbook answer or a live
failure leaves the fixture unchanged. With --only-changed (or --session
PATH) serve replays every recorded call whose request still matches and
asks the model only from each session's first call that changed, as record
--only-changed does. Under CI --record refuses, as record does, unless
AGENTSNAP_FORCE_UPDATE=1. What the agent sends as a credential (an
Authorization, x-api-key or x-goog-api-key header, a key=, user info, a
body member such as api_key) is a secret of the recording, as the key
variables are; name any other — a header of the agent's own — in
AGENTSNAP_SECRET_VARS, the names of the variables that hold them
(NAME,NAME), and the recording is refused when it would hold one; a replay's
verdict shows them as [REDACTED].

An agent's MCP server is served too, on an MCP Streamable HTTP endpoint
beside the model's: the server NAME's is /mcp/NAME on serve's address
(http://127.0.0.1:41234/mcp/NAME for the URL above). Each request is
recorded in the log of the session its Agentsnap-* headers name (the
root's without them), tools/call and resources/read among them. With
--record, --mcp NAME=URL names the live server's endpoint, and serve
forwards each request there (with its Mcp-* and Authorization headers,
on the live session its MCP client's initialize opened — serve answers
each initialize with an Mcp-Session-Id of its own, which MCP clients send
back, so a subagent may connect an MCP client of its own or share its
parent's, with or without lineage headers; a client that does not send it
back is routed by its session's initialize, or the one live session
for one that never initialized, and refused (400, failing the recording)
when more than one live session could be its; when serve stops it ends the
live sessions it opened, a DELETE with each Mcp-Session-Id, waiting at
most 100ms while it writes the recording; a credential in the URL, a
token= or user info, is a secret of the recording as the base URL's is;
a request it does not answer fails the recording, as a live model's
failure does); in a replay the
recording answers and no server is asked, so none needs to run. With
--only-changed, an MCP client whose session still replays is answered
from the recording and its notifications are dropped, as in a replay;
once the session is recorded anew, serve starts the client's live
session (its recorded initialize, then notifications/initialized) before
the first request that goes there. serve
answers each POST in its response; what a server sends of its own
(notifications, requests to the client) is not relayed: a GET for its
stream gets 405, and a subscriptions/listen an error saying so, neither
sent nor recorded. The endpoint is guarded as the model's is.

A recorded tool — one whose answer changes from run to run, or that must
not run in CI — goes through POST /agentsnap/tool on serve's address, with
the session's Agentsnap-* headers and the call as the model made it:
{"name": "...", "arguments": "<the JSON text>", "id": "<the call id, if
the agent has it>"}. In a replay the answer is {"output": {"text": "...",
"isError": false}}, recorded, and the agent does not run the tool; while
recording it is {"run": true, "id": "<the call's id>"}: the agent runs the
tool and sends the call again with that id and "output" set, which is
recorded in the session's log (tool/recorded) and answered back (with
--only-changed, a session that still replays its recorded model calls
gets the recorded output at once, as in a replay, and its tools do not
run; so do its MCP requests, which the live server is not asked). A call
that is none of the session's last answer's gets 400 with a message
naming them, and is not run; without an id, the call is the first of that
answer with the same name and arguments not asked for yet — a call asked
for counts as run, so two alike calls run at once get one each, and a
retry must send the id serve answered. Until a call told to run has its
output, the session's next model request gets 400 naming it (a replay
would have no output to give): send the output, an error output
({"text": "...", "isError": true}) if the tool failed. A call whose
output is recorded gets 400 when asked again: it runs once. Its output
sent again, the same (a client that retries after its connection
dropped), is answered as the first time and recorded once; another
output for it gets 400. A call the recording answered (a replay, or a
session that still replays under --only-changed), asked again with its
id (a retry), gets the same output again and is recorded once; without
its id it would be the next alike call, so a retry sends the id. Node
agents: recordedTool of js/agentsnap-lineage.

Exit status 0 when the replay matched its recording and its golden and
every recorded call was replayed (or the recording was written), 1
otherwise, 2 on bad usage.`,
		flags: func() *flag.FlagSet { return new(serveFlags).set() },
		run:   runServe,
	})
}

// serveFlags are the flags of serve.
type serveFlags struct {
	addr, runtime string
	lineage       string
	record        bool
	rec           recordFlags // the recording's flags, shared with record
	allowOrigins  originsFlag
	maxBody       sizeFlag
	mcp           mcpFlag
}

func (f *serveFlags) set() *flag.FlagSet {
	fs := newFlagSet("serve")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:0", "the loopback `HOST:PORT` to listen on (port 0: any free port)")
	fs.StringVar(&f.runtime, "runtime", "external", "the agent's runtime `NAME`, recorded in scenario.json; a replay needs the name that recorded it")
	fs.StringVar(&f.lineage, "lineage", "explicit", "how serve tells the agent's sessions apart, `explicit|infer`: explicit (the Agentsnap-* headers; a call without them is the root's) or infer (a call that continues no session is the child of the open tool call whose arguments hold its prompt); a fixture recorded with infer replays with it")
	fs.BoolVar(&f.record, "record", false, "record DIR from its playbook (or a live model, with --live) instead of replaying it")
	fs.BoolVar(&f.rec.live, "live", false, "with --record: answer from a live model instead of playbook.json, each call in the API the agent speaks (or --api)")
	fs.StringVar(&f.rec.api, "api", "", "with --live: call every request in this model `API` ("+apis.Names()+"); default $AGENTSNAP_API, else the API each request comes in")
	fs.StringVar(&f.rec.baseURL, "base-url", "", "with --live: the endpoint's base `URL` (default $AGENTSNAP_BASE_URL)")
	fs.StringVar(&f.rec.model, "model", "", "with --live: the model `M` every call goes to (default $AGENTSNAP_MODEL)")
	fs.BoolVar(&f.rec.keep, "keep-live-failures", false, "with --live: keep live calls and token counts that failed outside the model in the fixture")
	fs.BoolVar(&f.rec.replace, "replace-golden", false, "with --record: replace a transcript.golden the new transcript differs from, instead of proposing transcript.golden.new for review")
	fs.DurationVar(&f.rec.pace, "pace", 0, "with --record: pause `D` between the playbook's chunks, like a live stream (e.g. 20ms)")
	f.rec.onlyChangedFlags(fs, "with --record: ")
	fs.Var(&f.allowOrigins, "allow-origin", "the `ORIGIN` of a web page whose agent may call serve (repeatable), exact, such as http://localhost:5173")
	fs.Var(&f.mcp, "mcp", "with --record: the live MCP server `NAME=URL` (its Streamable HTTP endpoint; repeatable) that serve's endpoint "+mcpPath+"NAME forwards the agent's MCP requests to; a replay answers them from the recording")
	f.maxBody = httpguard.DefaultMaxBody
	fs.Var(&f.maxBody, "max-body", "the largest request body, a `SIZE` such as 64MiB (1KiB to 1GiB); a larger one is refused with 413")
	return fs
}

// runServe serves DIR until ctx is done. main cancels ctx on SIGINT and
// SIGTERM, so ctx.Done() is serve's stop signal — and only that: the
// replay or recording itself runs on context.WithoutCancel(ctx). A
// cancelled context would make the run "cancelled" (the recorder refuses
// to save, model calls abort), while stopping serve is how a run ends
// normally.
func runServe(ctx context.Context, e *env, args []string) int {
	var f serveFlags
	pos, err := parseFlags(f.set(), args)
	if err != nil {
		return usageError(e, "serve", "%v", err)
	}
	if len(pos) != 1 {
		return usageError(e, "serve", "want one scenario folder DIR, got %d arguments", len(pos))
	}
	if !f.record && (f.rec.live || f.rec.baseURL != "" || f.rec.model != "" || f.rec.api != "" || f.rec.keep || f.rec.pace != 0 || f.rec.replace || f.rec.onlyChanged || f.rec.session != "" || len(f.mcp) > 0) {
		return usageError(e, "serve", "--live, --base-url, --model, --api, --keep-live-failures, --pace, --replace-golden, --only-changed, --session and --mcp only apply with --record")
	}
	if err := errors.Join(checkPace(f.rec.pace), f.rec.checkSession()); err != nil {
		return usageError(e, "serve", "%v", err)
	}
	if f.runtime == "" {
		return usageError(e, "serve", "--runtime is empty; name the agent (the name is recorded, and a replay needs the same one)")
	}
	lineage := wire.Explicit
	switch f.lineage {
	case "explicit":
	case "infer":
		lineage = wire.Infer
	default:
		return usageError(e, "serve", "--lineage %q: want explicit or infer", f.lineage)
	}
	if err := loopback(f.addr); err != nil {
		return usageError(e, "serve", "%v", err)
	}
	dir := e.path(pos[0])
	if err := oneScenario("serve", pos[0], dir); err != nil {
		return fail(e, "serve", err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if aside := fixture.MovedAside(dir); aside != nil {
			return fail(e, "serve", aside) // not "new": the next recording would delete the copy aside
		}
		return fail(e, "serve", fmt.Errorf("%s is not a scenario folder; create one with: go tool agentsnap new CATEGORY/NAME", pos[0]))
	}
	if f.record {
		if err := recordRefused(pos[0]); err != nil {
			return fail(e, "serve", err)
		}
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fail(e, "serve", fmt.Errorf("listening on %s: %w; give another --addr, or port 0 for any free one", f.addr, err))
	}
	if err := loopbackListener(ln); err != nil {
		ln.Close()
		return usageError(e, "serve", "%v", err)
	}
	// The guard notes refusals from the server's goroutines, beside the
	// replay's and the recording's own messages.
	locked := *e
	locked.stderr = &lockedWriter{w: e.stderr}
	e = &locked
	rt := &serveRuntime{name: f.runtime, lineage: lineage, ln: ln, stdout: e.stdout, stop: ctx.Done(), mcp: f.mcp,
		guard: httpguard.Config{AllowOrigins: f.allowOrigins, MaxBody: int64(f.maxBody), Logf: serveLogf(e.stderr, "note")}}
	defer rt.closeListener()
	defer rt.joinEnding()
	work := context.WithoutCancel(ctx)
	if f.record {
		return serveRecord(work, e, pos[0], dir, &f, rt)
	}
	return serveReplay(work, e, pos[0], dir, rt)
}

// serveReplay replays dir through rt and prints the verdict as check does.
func serveReplay(ctx context.Context, e *env, arg, dir string, rt *serveRuntime) int {
	// The logs are not held while the agent runs: each script is derived
	// as its file is read, with a digest of the log for the verdict, which
	// reads again only the logs of sessions that differ; so serve's memory
	// grows with what is replayed, not with the fixture, and its exit with
	// what differs. Each replayed session is digested as the agent writes
	// it, not after SIGINT.
	// Loading makes mostly garbage (each log, once its script is derived):
	// the collector runs when the heap reaches loadHeap rather than at every
	// doubling from a few MiB, until serving starts (or serve gives up).
	rt.resumeGC = collectAt(loadHeap)
	defer rt.resumeGC()
	rt.verdict = true
	// A replay's differences quote what the agent sent: its key (a header,
	// a key=, user info), gathered as a recording gathers it, and the key
	// variables show in no verdict, no note and no error.
	secrets := secret.FromEnv(e.getenv)
	ctx = secret.NewContext(ctx, secrets)
	redacted := *e
	redacted.stdout, redacted.stderr = secrets.Writer(e.stdout), secrets.Writer(e.stderr)
	e = &redacted
	defer func() {
		if rt.resumeMemory != nil {
			rt.resumeMemory()
		}
	}()
	fx, err := fixture.Open(dir)
	if err != nil {
		return fail(e, "serve", err)
	}
	if rec := fx.Scenario.Recorded; rec != nil && rec.Runtime != "" && rec.Runtime != rt.name {
		return usageError(e, "serve", "%s was recorded with the runtime %q, and this serves %q; give --runtime %s", fx.Name, rec.Runtime, rt.name, rec.Runtime)
	}
	if rec := fx.Scenario.Recorded; rec != nil && rec.Lineage == "infer" {
		rt.lineage = wire.Infer // routed as it was recorded
	}
	hints := serveHints(arg, fx, rt.name)
	o, err := judge.Replay(ctx, fx, judge.Options{Runtime: rt, Logf: serveLogf(e.stderr, "note"), Once: true, Hints: hints})
	if err != nil && judge.RecordMends(dir, err) { // a log the replay cannot serve
		err = judge.WithRecordCommand(err, hints.Record(fx))
	}
	if uerr := rt.unprintedError(); uerr != nil {
		err = uerr // nothing was served: the replay's complaints follow from it
	}
	if err == nil && rt.calls.Load() == 0 {
		// The replay then only lists every recorded session as missing.
		err = fmt.Errorf("%s: no model call reached serve before it stopped, so nothing was replayed%s; run the agent against the URL serve prints first, then stop serve", fx.Name, rt.refusedNote())
	}
	if err != nil {
		return fail(e, "serve", shown(err))
	}
	g := judge.CompareGolden(o)
	fmt.Fprintln(e.stdout, printableLines(strings.TrimRight(o.Report(), "\n")))
	if g.Message != "" {
		fmt.Fprintf(e.stdout, "\n%s\n", printableLines(strings.TrimRight(g.Message, "\n")))
	}
	if !o.Passed() || g.Message != "" {
		return exitFail
	}
	return exitOK
}

// serveHints gives a replay's verdict and errors the command that
// re-records fx (DIR given as arg) through serve under runtime.
func serveHints(arg string, fx *fixture.Fixture, runtime string) judge.Hints {
	// The --mcp flags read every log: once, and only for a message that
	// names the command.
	mcpFlags := sync.OnceValue(func() string { return mcpFlagsOf(fx) })
	return judge.Hints{Record: func(*fixture.Fixture) string {
		cmd := fmt.Sprintf("go tool agentsnap serve %s --record --runtime %s%s", arg, runtime, mcpFlags())
		if rec := fx.Scenario.Recorded; rec != nil && rec.Provider != "" && rec.Provider != "playbook" {
			cmd = fmt.Sprintf("AGENTSNAP_API_KEY=... %s --live --base-url URL --model %s", cmd, rec.Model)
		}
		return cmd + " (and run the agent against the URL it prints)"
	}}
}

// serveRecord records dir through rt, as record does with its runtime.
func serveRecord(ctx context.Context, e *env, name, dir string, f *serveFlags, rt *serveRuntime) int {
	var opts recorder.Options
	var err error
	if f.rec.live {
		if opts, err = liveOptions(e, &f.rec, true); err != nil {
			return usageError(e, "serve", "%v", err)
		}
		opts.Driver = fixedModel{Driver: opts.Driver, model: opts.Model}
	} else if opts, err = recorder.PlaybookOptions(dir, f.rec.pace); err != nil {
		return fail(e, "serve", err)
	}
	opts.Runtime, opts.By, opts.Progress, opts.ReplaceGolden = rt, version, e.stderr, f.rec.replace
	f.rec.reuse(&opts)
	if rt.lineage == wire.Infer {
		opts.Lineage = "infer"
	}
	opts.Secrets = keySecrets(e, f.rec.baseURL)
	maps.Copy(opts.Secrets, f.mcp.secrets())
	opts.Logf = serveLogf(e.stderr, "warning")
	res, err := recorder.Record(ctx, dir, opts)
	rt.joinEnding()
	if err != nil && rt.served && rt.calls.Load() == 0 && rt.asked.Load() == 0 {
		// Else the recorder's complaint about an empty tree or an unused
		// playbook hides that the agent never reached serve. An agent
		// that asked the MCP or tool endpoint did: the error says what
		// failed there (a live MCP server that did not answer).
		err = fmt.Errorf("%s: no model call reached serve before it stopped, so nothing was recorded and the fixture is unchanged%s; run the agent against the URL serve prints (its first line on stdout) first, then stop serve", name, rt.refusedNote())
	}
	if uerr := rt.unprintedError(); uerr != nil {
		err = fmt.Errorf("%w; nothing was recorded and the fixture is unchanged", uerr)
	}
	if err != nil {
		return fail(e, "serve", shown(err))
	}
	printRecorded(e, name, res)
	return exitOK
}

// serveLogf returns a Logf that writes each message to w as a line of
// serve's: "agentsnap serve: KIND: message".
func serveLogf(w io.Writer, kind string) func(format string, args ...any) {
	return func(format string, args ...any) {
		fmt.Fprintf(w, "agentsnap serve: "+kind+": "+format+"\n", args...)
	}
}

// shown is err escaped for the terminal (printableLines), as check shows
// its problems: a run's errors and verdict quote what clients sent — a
// model name, a message, a path — and any local process may send serve an
// ESC or a line break.
func shown(err error) error { return errors.New(printableLines(err.Error())) }

// fixedModel sends every call to one model, whatever model the agent
// names: the agent's own name stays in the logs, as it sent it, so a
// replay compares what the agent sends.
type fixedModel struct {
	llm.Driver
	model string
}

func (d fixedModel) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	r := *req
	r.Model = d.model
	return d.Driver.Stream(ctx, &r)
}

// CountTokens implements llm.TokenCounter: the count of the same model.
func (d fixedModel) CountTokens(ctx context.Context, req *llm.Request) (int64, error) {
	r := *req
	r.Model = d.model
	return llm.CountTokens(ctx, d.Driver, &r)
}

// lockedWriter serialises writes from concurrent goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
