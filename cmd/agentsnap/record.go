package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
)

// version is written into recordings.
const version = "agentsnap v0.1.0"

// keyVars are the environment variables a live key is read from, in order.
var keyVars = []string{"AGENTSNAP_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY"}

func init() {
	register(&command{
		name:    "record",
		args:    "DIR [--live --base-url URL --model M] [--provider NAME] [--store SPEC] [--pace D]",
		summary: "record a scenario from its playbook, or from a live model with --live",
		order:   50,
		detail: `
Runs the scenario in DIR (its prompts, each a user turn of the root) through
the agent runtime and writes session.jsonl, session.<n>.jsonl (children in
lineage order), transcript.golden and the recording metadata in
scenario.json. Without --live the model's answers come from DIR/playbook.json:
no key, no network. With --live they come from an OpenAI-compatible endpoint
(OpenAI, DeepSeek, vLLM, Ollama); the key is read from AGENTSNAP_API_KEY,
else OPENAI_API_KEY, else DEEPSEEK_API_KEY, and sent as a bearer token.

All or nothing: a failed, cancelled or killed recording leaves the previous
fixture byte-identical. A recording that would contain the value of one of
those key variables is refused.

--store jsonl:DIR or --store sqlite:PATH also persists the sessions through
that store while the recording runs (the fixture files are written either
way).`,
		run: runRecord,
	})
}

func runRecord(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("record")
	live := fs.Bool("live", false, "record from a live OpenAI-compatible model")
	baseURL := fs.String("base-url", "https://api.openai.com/v1", "the endpoint's base URL (with --live)")
	model := fs.String("model", "", "the model (with --live)")
	provider := fs.String("provider", "", "provider name recorded in request headers (default: openai-compatible, or playbook)")
	storeSpec := fs.String("store", "", "also persist the recording as it runs: jsonl:DIR or sqlite:PATH")
	pace := fs.Duration("pace", 0, "stream the playbook at this pause per chunk, like a live model (e.g. 20ms)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return usageError(e, "record", "%v", err)
	}
	if len(pos) != 1 {
		return usageError(e, "record", "want one scenario folder DIR, got %d arguments", len(pos))
	}
	dir := e.path(pos[0])
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fail(e, "record", fmt.Errorf("%s is not a scenario folder; create one with: agentsnap new CATEGORY/NAME", pos[0]))
	}
	opts := recorder.Options{By: version, Progress: e.stderr, Secrets: map[string]string{}}
	for _, v := range keyVars {
		if val := e.getenv(v); val != "" {
			opts.Secrets[v] = strings.TrimSpace(val)
		}
	}
	if *live {
		key, from := openai.KeyFromEnv(e.getenv)
		if key == "" {
			return fail(e, "record", fmt.Errorf("--live needs an API key: set %s", strings.Join(keyVars, ", or ")))
		}
		if *model == "" {
			return usageError(e, "record", "--live needs --model (the model name the endpoint serves)")
		}
		logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		d, err := openai.New(openai.Config{BaseURL: *baseURL, APIKey: key, Model: *model, Logger: logger})
		if err != nil {
			return fail(e, "record", err)
		}
		fmt.Fprintf(e.stderr, "record: live model %s at %s (key from %s)\n", *model, redactURL(*baseURL), from)
		opts.Driver, opts.Model, opts.Provider = d, *model, "openai-compatible"
		opts.RetryBackoff = time.Second
	} else {
		if slices.Contains(args, "--base-url") || *model != "" {
			return usageError(e, "record", "--base-url and --model only apply with --live")
		}
		path := filepath.Join(dir, scenario.PlaybookFile)
		if _, err := os.Stat(path); err != nil {
			return fail(e, "record", fmt.Errorf("%s has no playbook.json; write one (agentsnap new scaffolds an example) or record from a model with --live", pos[0]))
		}
		pb, err := playbook.Load(path)
		if err != nil {
			return fail(e, "record", err)
		}
		d := playbook.NewDriver(pb, path)
		opts.Driver, opts.Consumed = llm.Paced(d, *pace), d.Unused
		opts.Model, opts.Provider = "playbook", "playbook"
	}
	if *provider != "" {
		opts.Provider = *provider
	}
	if *storeSpec != "" {
		spec, err := open.Parse(*storeSpec)
		if err != nil {
			return usageError(e, "record", "--store: %v", err)
		}
		spec.Path = e.path(spec.Path)
		opts.Store = func(ctx context.Context) (persistence.Store, error) { return spec.Store(ctx) }
	}
	res, err := recorder.Record(ctx, dir, opts)
	if err != nil {
		return fail(e, "record", err)
	}
	slices.Sort(res.Files)
	fmt.Fprintf(e.stdout, "recorded %s: %d sessions, %d model calls\n  wrote %s\n", pos[0], res.Sessions, res.Calls, strings.Join(res.Files, ", "))
	return exitOK
}
