package recorder

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/placeholder"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

// pairs returns the path replacements to apply.
func pairs(opts *Options) []placeholder.Pair {
	if opts.Placeholders != nil {
		return opts.Placeholders
	}
	return placeholder.Defaults()
}

// render returns every file of the new fixture by name: the logs with
// placeholders, the transcript golden and scenario.json with the recording
// metadata, and whether dir holds them already. A recording that comes
// out as the fixture already is keeps its recorded.at, so it changes no
// byte. keep, if set, may replace the logs (and their files) before the
// transcript is rendered from them: an only-changed recording keeps what
// the recording had.
func render(dir string, logs []*session.Log, sc *scenario.Scenario, opts *Options, keep func(map[string][]byte, []*session.Log)) (files map[string][]byte, rendered []*session.Log, same bool, err error) {
	files = map[string][]byte{}
	ps := pairs(opts)
	rendered = make([]*session.Log, len(logs))
	for i, l := range logs {
		b := placeholder.Apply(session.Encode(&l.Header, l.Events), ps)
		name := fixture.RootLog
		if i > 0 {
			name = fixture.ChildLog(i)
		}
		back, err := session.Read(bytes.NewReader(b), name)
		if err != nil {
			return nil, nil, false, fmt.Errorf("recorder: the recorded %s does not read back: %w", name, err)
		}
		rendered[i] = back
		files[name] = b
	}
	if keep != nil {
		keep(files, rendered)
	}
	text, err := transcript.Render(rendered)
	if err != nil {
		return nil, nil, false, err
	}
	// A golden that exists and differs is kept: the new transcript waits
	// beside it for review, unless the recording may replace it.
	files[fixture.GoldenFile] = []byte(text)
	if old, err := os.ReadFile(filepath.Join(dir, fixture.GoldenFile)); err == nil && string(old) != text && !opts.ReplaceGolden {
		files[fixture.GoldenFile], files[fixture.ProposalFile] = old, []byte(text)
	}
	rec := &scenario.Recorded{
		Provider: opts.Provider,
		Model:    opts.Model,
		At:       opts.Clock().UTC().Format(time.RFC3339),
		By:       opts.By,
		Runtime:  agentsnap.NameOf(opts.Runtime),
		Playbook: opts.Playbook,
		Lineage:  opts.Lineage,
	}
	// Every other file as it was: only scenario.json can differ now.
	same = sc.Recorded != nil && unchanged(dir, files)
	if same {
		old := *sc.Recorded
		old.At = rec.At
		if old == *rec {
			rec.At = sc.Recorded.At
		}
	}
	src, err := os.ReadFile(filepath.Join(dir, scenario.File))
	if err != nil {
		return nil, nil, false, fmt.Errorf("recorder: %w", err)
	}
	js, err := scenario.WithRecorded(src, rec)
	if err != nil {
		return nil, nil, false, fmt.Errorf("recorder: %s: %w", filepath.Join(dir, scenario.File), err)
	}
	files[scenario.File] = js
	return files, rendered, same && bytes.Equal(src, js), nil
}

// unchanged reports whether dir holds exactly files among its recorded
// files: the same bytes, and no session log the recording did not write.
func unchanged(dir string, files map[string][]byte) bool {
	for name, b := range files {
		old, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(old, b) {
			return false
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if _, ok := files[e.Name()]; !ok && fixture.IsRecorded(e.Name()) {
			return false
		}
	}
	return true
}

// changes names what saving files over dir changes, each list sorted: the
// files whose bytes dir does not hold yet (new or changed), and the
// recorded files of dir that files lacks (a child log no longer created, a
// stale proposal).
func changes(dir string, files map[string][]byte) (changed, removed []string) {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !holds(filepath.Join(dir, name), files[name]) {
			changed = append(changed, name)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, ok := files[e.Name()]; !ok && fixture.IsRecorded(e.Name()) {
			removed = append(removed, e.Name())
		}
	}
	return changed, removed
}

// holds reports whether the file at path holds exactly b. It reads the
// file a piece at a time: a fixture's logs can be large.
func holds(path string, b []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := io.ReadFull(f, buf)
		if n > len(b) || !bytes.Equal(buf[:n], b[:n]) {
			return false
		}
		b = b[n:]
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return len(b) == 0
		case err != nil:
			return false
		}
	}
}

// toolErrors lists the tool calls of the logs whose result was an error.
func toolErrors(logs []*session.Log) []string {
	labels := transcript.Labels(logs)
	var out []string
	for _, l := range logs {
		own := l.Own()
		for i := range own {
			if own[i].Type != session.TypeToolResult {
				continue
			}
			var d session.ToolResultData
			if own[i].Decode(&d) != nil {
				continue
			}
			for _, p := range d.Message.Content {
				if p.Type != session.PartToolResult || !p.IsError {
					continue
				}
				text := ""
				for _, c := range p.Content {
					text += c.Text
				}
				out = append(out, fmt.Sprintf("%s turn %d step %d: call %s (%s) returned an error: %s", labels[l.Header.ID], d.Turn, d.Step, p.ToolCallID, p.Name, text))
			}
		}
	}
	return out
}

// likelyCause names the tool calls that returned errors, which usually
// explain an agent that took another path than its playbook plans (the
// depth limit refusing a delegation, a misspelled tool).
func likelyCause(logs []*session.Log) string {
	ordered, err := session.LineageOrder(logs)
	if err != nil {
		return ""
	}
	errs := toolErrors(ordered)
	if len(errs) == 0 {
		return ""
	}
	return "\ntool calls that returned errors, the likely cause:\n  " + strings.Join(errs, "\n  ")
}

// tripwire refuses to save when a secret's value appears in any file, or in
// the text a model streamed across several chunks. The message names the
// secret's source and the file, never the value; the caller says what was
// (not) written.
func tripwire(files map[string][]byte, logs []*session.Log, secrets *secret.Set) error {
	if secrets.Len() == 0 {
		return nil
	}
	for _, file := range sortedKeys(files) {
		b := files[file]
		if file == scenario.File {
			// Its recorded member is agentsnap's own labels (runtime,
			// provider, by, model): a dummy key an agent sends that is
			// also one of them ("agentsnap") is no leak. The author's
			// members are checked.
			if blank, err := scenario.WithRecorded(b, &scenario.Recorded{}); err == nil {
				b = blank
			}
		}
		if src, i, ok := secrets.Find(b); ok {
			line := 1 + bytes.Count(b[:i], []byte{'\n'})
			return fmt.Errorf("%w: the value of %s appears in %s line %d", ErrSecret, src, file, line)
		}
	}
	for _, st := range joinStreams(logs) {
		if src, _, ok := secrets.FindString(st.text); ok {
			return fmt.Errorf("%w: the value of %s was streamed across chunks in %s (turn %d step %d)", ErrSecret, src, st.file, st.turn, st.step)
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
		file := fixture.RootLog
		if li > 0 {
			file = fixture.ChildLog(li)
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

// save writes the new fixture all or nothing (fixture.Saver), through
// writeFile.
func save(dir string, files map[string][]byte) error {
	return fixture.Saver{WriteFile: writeFile}.Save(dir, files)
}

// writeFile writes a new fixture file; tests replace it to simulate a full
// disk.
var writeFile = fixture.WriteSynced

// writeSynced is the default writeFile.
var writeSynced = fixture.WriteSynced
