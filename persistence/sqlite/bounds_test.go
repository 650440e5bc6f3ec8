package sqlite_test

import (
	"encoding/json"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// Rows another tool wrote hold integers of the right type but out of
// range, or values no log line may hold: reading refuses them, naming the
// database and the session, and another session still loads.
var _ = Describe("sqlite rows out of range", func() {
	var path string

	BeforeEach(func(ctx SpecContext) {
		path = filepath.Join(GinkgoT().TempDir(), "sessions.db")
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		for _, id := range []string{"a", "b"} {
			Expect(s.Create(ctx, storetest.RootHeader(id), nil)).To(Succeed())
			Expect(s.Append(ctx, id, storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed()) // 8 events
		}
		Expect(s.Close()).To(Succeed())
	})

	// readB opens the database read-only (closed at the spec's end) and
	// reads session b.
	readB := func(ctx SpecContext) (*sqlite.Backend, error) {
		GinkgoHelper()
		ro, err := sqlite.OpenReadOnly(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ro.Close)
		_, err = ro.Read(ctx, "b")
		return ro, err
	}

	DescribeTable("fails loading the session, naming the database and the session",
		func(ctx SpecContext, update string, says ...string) {
			rawExec(path, update)
			ro, err := readB(ctx)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(path))
			Expect(err.Error()).To(ContainSubstring("session b"))
			for _, s := range says {
				Expect(err.Error()).To(ContainSubstring(s))
			}
			_, err = ro.Read(ctx, "a")
			Expect(err).NotTo(HaveOccurred(), "another session still loads")
		},
		Entry("a negative log version", "UPDATE sessions SET version = -1 WHERE id = 'b'", "log version -1"),
		Entry("a seed_length one past the last event", "UPDATE sessions SET seed_length = 9 WHERE id = 'b'",
			"seedLength is 9 but the session holds 8 events"),
		Entry("a negative seed_length", "UPDATE sessions SET seed_length = -1 WHERE id = 'b'", "seedLength -1"),
		Entry("a delegation_depth past the maximum", "UPDATE sessions SET delegation_depth = 65 WHERE id = 'b'", "delegationDepth 65"),
		Entry("an unknown mode", "UPDATE sessions SET mode = 'clone' WHERE id = 'b'", `mode "clone"`),
		Entry("an extra_members row at the seq just past the last event", "INSERT INTO extra_members VALUES ('b', 8, '{\"k\":1}')",
			"extra_members holds seq 8, past the last event (7)"),
		Entry("an event of type session", "UPDATE events SET type = 'session' WHERE session_id = 'b' AND seq = 2",
			`event seq 2 has type "session"`),
		Entry("an event whose data is not JSON", "UPDATE events SET data = '{\"a\":' WHERE session_id = 'b' AND seq = 3",
			"event seq 3", "data is not JSON"),
	)

	It("fails loading a session whose event has a NULL type, where another tool's table allows one", func(ctx SpecContext) {
		rawExec(path,
			"ALTER TABLE events RENAME TO old_events",
			"CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT, time INTEGER NOT NULL, data TEXT, source_event_seqs TEXT, surface_op TEXT, PRIMARY KEY (session_id, seq))",
			"INSERT INTO events SELECT * FROM old_events",
			"DROP TABLE old_events",
			"UPDATE events SET type = NULL WHERE session_id = 'b' AND seq = 4")
		_, err := readB(ctx)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring(path))
		Expect(err.Error()).To(ContainSubstring("event seq 4: events.type holds NULL"))
	})

	It("keeps surfaceOp on every event of a batch large enough to be inserted many rows at a time", func(ctx SpecContext) {
		p := filepath.Join(GinkgoT().TempDir(), "big.db")
		s, err := sqlite.Open(ctx, p)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		Expect(s.Create(ctx, storetest.RootHeader("r"), nil)).To(Succeed())
		events := make([]session.Event, 40)
		for i := range events {
			events[i] = session.Event{Type: "x", Seq: int64(i), Time: 1, Data: json.RawMessage(`{}`), SurfaceOp: json.RawMessage(`{"op":"set"}`)}
		}
		Expect(s.Append(ctx, "r", events)).To(Succeed())
		ro, err := sqlite.OpenReadOnly(ctx, p)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ro.Close)
		l, err := ro.Read(ctx, "r")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(HaveLen(40))
		for i := range l.Events {
			Expect(string(l.Events[i].SurfaceOp)).To(Equal(`{"op":"set"}`), "event seq %d", i)
		}
	})
})
