package judge

import (
	"context"
	"fmt"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

// judge reads the replayed logs and compares them with the recording:
// the fixture's logs in memory, or, for a fixture opened without them,
// its files read one at a time (judgeFiles).
func (o *Outcome) judge(ctx context.Context, store persistence.Store) error {
	fx := o.Fixture
	var heads []session.Header
	if fx.Logs == nil && o.prepared.ownHeads {
		heads = o.prepared.heads()
	} else if fx.Logs == nil {
		// The recording's errors come first, as when it was read whole.
		var err error
		if heads, err = fx.LogHeaders(); err != nil {
			// The first log in file order that does not read, as ReadLogs
			// names it: it may be before the first header that does not.
			if rerr := fx.EachLog(func(int, *session.Log) {}); rerr != nil {
				err = rerr
			}
			return fmt.Errorf("judge: %s: reading the recording for the verdict: %w", fx.Name, err)
		}
	}
	var err error
	if o.Replayed, err = collect(ctx, store); err != nil {
		return fmt.Errorf("judge: %s: reading the replayed logs: %w", fx.Name, err)
	}
	cwd := o.prepared.cwd
	if fx.Logs != nil {
		pairs, n := pairsOf(fx.Logs, o.Replayed, cwd)
		vs := make([]verdict, len(pairs))
		eachSession(len(pairs), func(i int) { vs[i] = judgePair(pairs[i], n) })
		o.settle(vs, CheckCategory(fx))
		return nil
	}
	if err := o.judgeFiles(heads, cwd); err != nil {
		return fmt.Errorf("judge: %s: reading the recording for the verdict: %w", fx.Name, err)
	}
	return nil
}

// judgeFiles is the comparison of a fixture opened without its logs, whose
// headers are heads: the sessions are paired by their headers, then each
// recorded log is read, compared with its replay and let go
// (fixture.EachLog), on every processor for many — or, when the replay
// kept a digest of each (prepared.kept), only those of the sessions that
// differ from it (judgeKept). So the verdict holds a log per processor,
// not the recording, and says what the comparison of the logs in memory
// says, in the same order.
func (o *Outcome) judgeFiles(heads []session.Header, cwd string) error {
	fx := o.Fixture
	golden := make([]*session.Log, len(heads)) // the headers, for pairing
	for i := range heads {
		golden[i] = &session.Log{Path: fx.LogPaths()[i], Header: heads[i]}
	}
	// The files are numbered in lineage order (EachLog checks it), so
	// they pair as the logs they hold would.
	pairs, n := pairsOf(golden, o.Replayed, cwd)
	vs := make([]verdict, len(pairs))
	cat := fx.Category()
	var tree []recorded
	var err error
	if kept := o.prepared.kept; kept != nil {
		tree, err = o.judgeKept(pairs, n, vs, kept)
	} else {
		tree = make([]recorded, len(golden))
		err = fx.EachLog(func(i int, l *session.Log) {
			p := pairs[i]
			p.golden = l
			vs[i], tree[i] = judgePair(p, n), recordedOf(l, cat)
		})
	}
	if err != nil {
		return err
	}
	for i := len(golden); i < len(pairs); i++ {
		vs[i] = judgePair(pairs[i], n) // the replay's sessions the recording has not
	}
	o.settle(vs, checkCategory(tree, cat))
	return nil
}

// countCalls is the model calls of logs, each log's counted on its own
// processor when there are many (serve's thousands of sessions), but for
// those whose count is known (Outcome.counted).
func countCalls(logs []*session.Log, known map[*session.Log]int) int {
	calls := make([]int, len(logs))
	eachSession(len(calls), func(i int) {
		if n, ok := known[logs[i]]; ok {
			calls[i] = n
		} else {
			calls[i] = logs[i].CountModelCalls()
		}
	})
	n := 0
	for _, c := range calls {
		n += c
	}
	return n
}

// heads are the headers of the scripts, which fakellm derived from the
// fixture's files in file order (ownHeads): those the replay was served
// from.
func (p *prepared) heads() []session.Header {
	scripts := p.rec.Scripts()
	heads := make([]session.Header, len(scripts))
	for i, s := range scripts {
		heads[i] = s.Header
	}
	return heads
}

// collect loads every session of the store in lineage order.
// A runtime that wrote nothing leaves no logs: the comparison then says
// the replay never created the recorded sessions.
func collect(ctx context.Context, store persistence.Store) ([]*session.Log, error) {
	logs, err := persistence.LoadAll(ctx, store)
	if err != nil || len(logs) == 0 {
		return nil, err
	}
	return session.LineageOrder(logs)
}

// settle fills the verdict from each pair's, in the recording's lineage
// order: the first drift, every other difference, then the category's
// rules (violations), consumption and the transcript.
func (o *Outcome) settle(vs []verdict, violations []string) {
	for _, v := range vs {
		switch {
		case v.diff == nil:
		// A request that differs after an earlier drift is a consequence
		// and stays a plain difference.
		case o.Drift == nil && v.tool != nil:
			o.Drift = v.tool
		case o.Drift == nil && v.count != nil:
			o.Drift = v.count
		case o.Drift == nil && v.request != nil:
			o.Drift = v.request
		default:
			o.Differences = append(o.Differences, *v.diff)
		}
	}
	o.RuleViolations = violations
	o.Consumption = o.driver.Check()
	if a, ok := o.Consumption.(interface{ WithAdvice(string) error }); ok && o.notMended() {
		// The driver's advice, to re-record, was set before the run; a run
		// error re-recording does not mend says what helps instead.
		o.Consumption = a.WithAdvice("the replay errors below say why")
	}
	o.Notes = o.driver.Notes()
	o.Calls = countCalls(o.Replayed, o.counted)
	if len(o.Replayed) > 0 {
		text, err := transcript.RenderOrdered(o.Replayed) // collect ordered them
		if err != nil {
			o.RunErrors = append(o.RunErrors, err)
		}
		o.Transcript = text
	}
}
