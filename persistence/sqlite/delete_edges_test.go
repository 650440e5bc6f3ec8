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

var _ = Describe("sqlite delete", func() {
	It("removes a session's extra members too, so a session created again under its id inherits none", func(ctx SpecContext) {
		path := filepath.Join(GinkgoT().TempDir(), "sessions.db")
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		marked := []session.Event{{Type: "x/flag", Seq: 0, Time: 1, Ignorable: true, Extra: map[string]json.RawMessage{"note": json.RawMessage(`"old"`)}}}
		Expect(s.Create(ctx, storetest.RootHeader("a"), nil)).To(Succeed())
		Expect(s.Append(ctx, "a", marked)).To(Succeed())
		Expect(s.Delete(ctx, "a")).To(Succeed())
		Expect(query(path, "SELECT count(*) FROM extra_members WHERE session_id = 'a'")).To(Equal([][]string{{"0"}}))

		Expect(s.Create(ctx, storetest.RootHeader("a"), nil)).To(Succeed())
		Expect(s.Append(ctx, "a", []session.Event{{Type: "x/flag", Seq: 0, Time: 1}})).To(Succeed())
		l, err := s.Load(ctx, "a")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events[0].Ignorable).To(BeFalse())
		Expect(l.Events[0].Extra).To(BeEmpty())
	})
})
