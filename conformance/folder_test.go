package conformance_test

import (
	"os"
	"path/filepath"
	"regexp"

	"github.com/agentsnap/agentsnap/conformance"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the conformance kit's folder, when a rule is broken", func() {
	It("is kept by Run, and its failure names it, so a user can look", func(ctx SpecContext) {
		cfg := only(reference(), "spawn")
		cfg.New = broken(mutation{drop: ofType(session.TypeStepEnd)})
		cfg.Dir = "" // the kit's own temporary folder, as a user's run has
		tb := &fakeTB{ctx: ctx}
		conformance.Run(tb, cfg)
		Expect(tb.errors).To(HaveLen(1))
		m := regexp.MustCompile(`the recordings are kept in (\S+); agentsnap inspect (\S+) shows one scenario's session tree`).FindStringSubmatch(tb.errors[0])
		Expect(m).NotTo(BeNil(), tb.errors[0])
		DeferCleanup(os.RemoveAll, m[1])
		Expect(filepath.Base(m[1])).To(HavePrefix("agentsnap-conformance-"))
		Expect(m[2]).To(Equal(filepath.Join(m[1], "CATEGORY", "NAME")))
		Expect(filepath.Join(m[1], "spawn", "spawn", "session.jsonl")).To(BeARegularFile())
	})
})
