package sqlite_test

import (
	"context"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
)

// SQLite does not enforce column types, so another tool can leave a value
// of the wrong type in a row; reading it must say where it is.
var _ = Describe("sqlite rows of the wrong type", func() {
	ctx := context.Background()
	var path string

	BeforeEach(func() {
		path = filepath.Join(GinkgoT().TempDir(), "sessions.db")
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		for _, id := range []string{"a", "b"} {
			Expect(s.Create(ctx, storetest.RootHeader(id), nil)).To(Succeed())
			Expect(s.Append(ctx, id, storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		}
		Expect(s.Close()).To(Succeed())
	})

	// located checks that err names the database and says each of says.
	located := func(err error, says []string, what string) {
		GinkgoHelper()
		Expect(err).To(HaveOccurred(), what)
		Expect(err.Error()).To(ContainSubstring(path), what)
		for _, s := range says {
			Expect(err.Error()).To(ContainSubstring(s), what)
		}
	}

	// readOnly opens the database read-only; opening reads no row.
	readOnly := func() *sqlite.Backend {
		GinkgoHelper()
		ro, err := sqlite.OpenReadOnly(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ro.Close)
		return ro
	}

	DescribeTable("a header value fails listing and loading the session, naming the database, the session, the column and what belongs there",
		func(update string, says ...string) {
			rawExec(path, update)
			ro := readOnly()
			_, err := ro.Sessions(ctx)
			located(err, says, "list")
			_, err = ro.Read(ctx, "b")
			located(err, says, "load")
			_, err = sqlite.Open(ctx, path) // it lists the sessions
			located(err, says, "open")
			_, err = ro.Read(ctx, "a")
			Expect(err).NotTo(HaveOccurred(), "another session still loads")
		},
		Entry("seed_length as text", "UPDATE sessions SET seed_length = 'abc' WHERE id = 'b'",
			"session b", "sessions.seed_length", `holds the text "abc"`, "it must be an integer, the number of seed events (NULL for none)"),
		Entry("seed_length as a real", "UPDATE sessions SET seed_length = 1.5 WHERE id = 'b'",
			"session b", "sessions.seed_length", "holds the real number 1.5", "it must be an integer"),
		Entry("delegation_depth as text", "UPDATE sessions SET delegation_depth = 'deep' WHERE id = 'b'",
			"session b", "sessions.delegation_depth", `holds the text "deep"`, "it must be an integer"),
		Entry("created_at as a blob", "UPDATE sessions SET created_at = x'0102' WHERE id = 'b'",
			"session b", "sessions.created_at", "holds a blob of 2 bytes", "it must be an integer, Unix milliseconds"),
		Entry("created_at as a real", "UPDATE sessions SET created_at = 17.25 WHERE id = 'b'",
			"session b", "sessions.created_at", "holds the real number 17.25", "it must be an integer"),
		Entry("version as text", "UPDATE sessions SET version = 'zero' WHERE id = 'b'",
			"session b", "sessions.version", `holds the text "zero"`, "it must be an integer, the log version (0)"),
	)

	DescribeTable("an event value fails loading the session, naming the database, the session, the event, the column and what belongs there",
		func(update string, says ...string) {
			rawExec(path, update)
			ro := readOnly()
			_, err := ro.Read(ctx, "b")
			located(err, append([]string{"read session b"}, says...), "load")
			s, err := sqlite.Open(ctx, path)
			Expect(err).NotTo(HaveOccurred(), "listing reads no event")
			DeferCleanup(s.Close)
			_, err = s.Load(ctx, "b")
			located(err, append([]string{"session b"}, says...), "load through the store")
			_, err = s.Load(ctx, "a")
			Expect(err).NotTo(HaveOccurred(), "another session still loads")
		},
		Entry("time as text", "UPDATE events SET time = 'noon' WHERE session_id = 'b' AND seq = 3",
			"event seq 3", "events.time", `holds the text "noon"`, "it must be an integer, Unix milliseconds"),
		Entry("time as a real", "UPDATE events SET time = 1.5 WHERE session_id = 'b' AND seq = 0",
			"event seq 0", "events.time", "holds the real number 1.5", "it must be an integer"),
		Entry("seq as text", "UPDATE events SET seq = 'abc' WHERE session_id = 'b' AND seq = 7",
			"the events row after seq 6", "events.seq", `holds the text "abc"`, "it must be an integer, the event's place in its session from 0"),
		Entry("seq as a real, first", "UPDATE events SET seq = -0.5 WHERE session_id = 'b' AND seq = 0",
			"the first events row", "events.seq", "holds the real number -0.5", "it must be an integer"),
		Entry("an extra_members seq as text", "INSERT INTO extra_members VALUES ('b', 'x', '{}')",
			"extra_members.seq", `holds the text "x"`, "it must be an integer, the seq of an event (-1 for the header)"),
	)
})
