package recorder

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/internal/placeholder"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

// Options configures a recording.
type Options struct {
	Driver llm.Driver // the model: llm/openai (live) or llm/playbook
	// Consumed, if set, runs after the prompts and fails the recording when
	// authored model turns went unused (a playbook.Driver's Unused): the
	// agent took another path than its author planned.
	Consumed func() error
	Provider string // recorded in request headers and scenario.json
	Model    string // recorded in request headers and scenario.json
	By       string // recorded as scenario.json recorded.by, e.g. "agentsnap v0.1.0"

	// Secrets maps a name (an environment variable) to a value that must
	// never be written; values shorter than 8 bytes are ignored.
	Secrets map[string]string

	// Store, if set, opens the store the recording persists through as it
	// runs (e.g. SQLite, to keep a long live recording's sessions even if
	// the process dies). Default: in memory. The fixture's JSONL files are
	// written from it at the end either way.
	Store func(ctx context.Context) (persistence.Store, error)

	// RetryBackoff is the delay before a retried model call (doubling per
	// attempt; scenario.json's maxAttempts sets how many). Only timing: the
	// log is the same with any backoff, so replays use none.
	RetryBackoff time.Duration

	Progress io.Writer        // one line per session turn; nil for none
	Clock    func() time.Time // default time.Now
	// Placeholders maps machine paths to the placeholders they become.
	// Default: placeholder.Defaults (working, temporary and home folders).
	Placeholders []placeholder.Pair
}

// Result describes a finished recording.
type Result struct {
	Dir      string
	Sessions int
	Calls    int // model calls
	Files    []string
}

// Errors of Record, for errors.Is.
var (
	ErrSecret    = errors.New("refusing to save: a secret appears in the recording")
	ErrRecording = errors.New("recording failed")
)

// Record runs the scenario in dir and replaces the fixture's logs, golden
// and recording metadata. On any error the folder is left as it was.
func Record(ctx context.Context, dir string, opts Options) (*Result, error) {
	if opts.Driver == nil {
		return nil, errors.New("recorder: Options.Driver is nil; give it a playbook.Driver (offline) or an openai.Driver (live)")
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if st, err := os.Lstat(dir); err == nil && st.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("recorder: %s is a symlink; record into the real folder, so the swap cannot land outside the fixtures", dir)
	}
	if _, err := atomicfile.RecoverDir(dir, "record"); err != nil {
		return nil, fmt.Errorf("recorder: %s: cleaning up after an earlier recording: %w", dir, err)
	}
	sc, err := scenario.Load(dir)
	if err != nil {
		return nil, err
	}
	logs, err := run(ctx, dir, sc, &opts)
	if err != nil {
		return nil, err
	}
	files, rendered, err := render(logs, sc, &opts)
	if err != nil {
		return nil, err
	}
	if err := tripwire(files, rendered, opts.Secrets); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("recorder: %s: %w; the fixture is unchanged", dir, err)
	}
	if err := save(dir, files); err != nil {
		return nil, err
	}
	res := &Result{Dir: dir, Sessions: len(logs)}
	for _, l := range logs {
		res.Calls += countCalls(l.Own())
	}
	for name := range files {
		res.Files = append(res.Files, name)
	}
	return res, nil
}

// run drives the prompts through the runtime and returns the logs in
// lineage order.
func run(ctx context.Context, dir string, sc *scenario.Scenario, opts *Options) ([]*session.Log, error) {
	var store persistence.Store = memory.New()
	if opts.Store != nil {
		var err error
		if store, err = opts.Store(ctx); err != nil {
			return nil, fmt.Errorf("recorder: opening the store: %w", err)
		}
	}
	defer store.Close()
	cwd, _ := os.Getwd()
	cfg := agent.Config{
		Driver:   opts.Driver,
		Store:    store,
		Provider: opts.Provider,
		Model:    opts.Model,
		Cwd:      cwd,
		Clock:    opts.Clock,
		IDs:      agent.LineageIDs("root"),
		OnTurn:   progress(opts.Progress, dir),
	}
	if err := sc.Configure(&cfg); err != nil {
		return nil, err
	}
	cfg.Retry.Backoff = opts.RetryBackoff
	rt, err := agent.New(cfg)
	if err != nil {
		return nil, err
	}
	s, err := rt.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	err = sc.Drive(ctx, s, func(i int, res agent.TurnResult, err error) error {
		if err == nil {
			err = notStarted(res.Errors)
		}
		if err != nil {
			return fmt.Errorf("%w: %s: prompt %d: %w; the fixture is unchanged", ErrRecording, dir, i+1, err)
		}
		return nil
	})
	if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
		return nil, fmt.Errorf("%w: %s: %w; the fixture is unchanged", ErrRecording, dir, err)
	}
	if err != nil {
		return nil, err
	}
	if opts.Consumed != nil {
		if err := opts.Consumed(); err != nil {
			return nil, fmt.Errorf("%w: %s: %w; the fixture is unchanged", ErrRecording, dir, err)
		}
	}
	logs, err := persistence.LoadAll(ctx, store)
	if err != nil {
		return nil, err
	}
	return session.LineageOrder(logs)
}

// notStarted returns the first child failure that is a driver refusing to
// start a call: an authoring error, not a recorded outcome.
func notStarted(errs []error) error {
	for _, err := range errs {
		if errors.Is(err, agent.ErrNotStarted) {
			return err
		}
	}
	return nil
}

func progress(w io.Writer, dir string) func(agent.TurnEvent) {
	if w == nil {
		return nil
	}
	var mu sync.Mutex
	name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
	return func(ev agent.TurnEvent) {
		mu.Lock()
		defer mu.Unlock()
		who := "root"
		if !ev.Session.IsRoot() {
			who = fmt.Sprintf("%s child via %s (depth %d)", ev.Session.Mode, ev.Session.ParentCallID, ev.Session.Depth)
		}
		if ev.Ended {
			fmt.Fprintf(w, "record %s: %s turn %d ended %s\n", name, who, ev.Turn, ev.Reason.Kind)
		} else {
			fmt.Fprintf(w, "record %s: %s turn %d\n", name, who, ev.Turn)
		}
	}
}

func countCalls(evs []session.Event) int {
	n := 0
	for i := range evs {
		if evs[i].Type == session.TypeRequestHeader {
			n++
		}
	}
	return n
}

// pairs returns the path replacements to apply.
func pairs(opts *Options) []placeholder.Pair {
	if opts.Placeholders != nil {
		return opts.Placeholders
	}
	return placeholder.Defaults()
}

// render returns every file of the new fixture by name: the logs with
// placeholders, the transcript golden and scenario.json with metadata.
func render(logs []*session.Log, sc *scenario.Scenario, opts *Options) (map[string][]byte, []*session.Log, error) {
	files := map[string][]byte{}
	ps := pairs(opts)
	rendered := make([]*session.Log, len(logs))
	for i, l := range logs {
		b := placeholder.Apply(session.Encode(&l.Header, l.Events), ps)
		name := session.RootFile
		if i > 0 {
			name = session.ChildFile(i)
		}
		back, err := session.Read(bytes.NewReader(b), name)
		if err != nil {
			return nil, nil, fmt.Errorf("recorder: the recorded %s does not read back: %w", name, err)
		}
		rendered[i] = back
		files[name] = b
	}
	text, err := transcript.Render(rendered)
	if err != nil {
		return nil, nil, err
	}
	files[scenario.GoldenFile] = []byte(text)
	meta := *sc
	meta.Recorded = &scenario.Recorded{Provider: opts.Provider, Model: opts.Model, At: opts.Clock().UTC().Format(time.RFC3339), By: opts.By}
	js, err := meta.Encode()
	if err != nil {
		return nil, nil, err
	}
	files[scenario.File] = js
	return files, rendered, nil
}

// tripwire refuses to save when a secret's value appears in any file, or in
// the text a model streamed across several chunks. The message names the
// variable and the file, never the value.
func tripwire(files map[string][]byte, logs []*session.Log, secrets map[string]string) error {
	var streams []stream
	for _, name := range sortedKeys(secrets) {
		value := secrets[name]
		if len(value) < 8 {
			continue
		}
		for _, file := range sortedKeys(files) {
			b := files[file]
			if i := bytes.Index(b, []byte(value)); i >= 0 {
				line := 1 + bytes.Count(b[:i], []byte{'\n'})
				return fmt.Errorf("%w: the value of %s appears in %s line %d; nothing was written (check what the model echoed, and never put keys in prompts)", ErrSecret, name, file, line)
			}
		}
		if streams == nil {
			streams = joinStreams(logs)
		}
		for _, st := range streams {
			if strings.Contains(st.text, value) {
				return fmt.Errorf("%w: the value of %s was streamed across chunks in %s (turn %d step %d); nothing was written", ErrSecret, name, st.file, st.turn, st.step)
			}
		}
	}
	return nil
}

// stream is the text one content block streamed, its deltas joined.
type stream struct {
	file       string
	turn, step int
	text       string
}

// joinStreams joins the deltas of every block of every model call, so a
// key cut into chunks is found whole.
func joinStreams(logs []*session.Log) []stream {
	type key struct{ log, turn, step, attempt, index int }
	var out []stream
	var texts []*strings.Builder
	at := map[key]int{}
	for li, l := range logs {
		file := session.RootFile
		if li > 0 {
			file = session.ChildFile(li)
		}
		for i := range l.Events {
			if l.Events[i].Type != session.TypeAssistantChunk {
				continue
			}
			d, err := session.DecodeChunkData(l.Events[i].Data)
			if err != nil {
				continue
			}
			k := key{li, d.Turn, d.Step, d.Attempt, d.Chunk.Index}
			n, ok := at[k]
			if !ok {
				n = len(out)
				at[k] = n
				out = append(out, stream{file: file, turn: d.Turn, step: d.Step})
				texts = append(texts, &strings.Builder{})
			}
			texts[n].WriteString(d.Chunk.Text)
			texts[n].WriteString(d.Chunk.ArgumentsDelta)
		}
	}
	for n := range out {
		out[n].text = texts[n].String()
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// save writes the new fixture into a temporary folder beside dir — the
// authored files copied, the recorded ones rendered — and swaps it in.
func save(dir string, files map[string][]byte) error {
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	tmp, err := os.MkdirTemp(parent, "."+base+".record-")
	if err != nil {
		return fmt.Errorf("recorder: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("recorder: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if _, regenerated := files[name]; regenerated || isRecordedLog(name) {
			continue
		}
		if err := copyEntry(filepath.Join(dir, name), filepath.Join(tmp, name)); err != nil {
			return fmt.Errorf("recorder: %w", err)
		}
	}
	for name, b := range files {
		if err := writeFile(filepath.Join(tmp, name), b); err != nil {
			return fmt.Errorf("recorder: %w", err)
		}
	}
	if err := atomicfile.SyncDir(tmp); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("recorder: %w", err)
	}
	if err := atomicfile.ReplaceDir(tmp, dir); err != nil {
		return fmt.Errorf("recorder: %w", err)
	}
	done = true
	return nil
}

// isRecordedLog reports whether name is a session log a recording writes.
func isRecordedLog(name string) bool {
	return name == session.RootFile || (strings.HasPrefix(name, "session.") && strings.HasSuffix(name, ".jsonl"))
}

// writeFile writes a new fixture file; tests replace it to simulate a full
// disk.
var writeFile = writeSynced

func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// copyEntry copies an authored file (or folder) into the new fixture.
func copyEntry(from, to string) error {
	st, err := os.Lstat(from)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return os.CopyFS(to, os.DirFS(from))
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; a fixture holds plain files only", from)
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return writeSynced(to, b)
}
