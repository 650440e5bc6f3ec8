package main

import (
	"strings"

	"github.com/agentsnap/agentsnap/llm/apis"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap help record", func() {
	It("names each API's key variables in the order a live recording reads them", func() {
		r := cli("", nil, "help", "record")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		text := strings.Join(strings.Fields(r.stdout), " ")
		Expect(text).To(ContainSubstring("the key from AGENTSNAP_API_KEY, else the API's own variables"))
		for _, a := range apis.All() {
			Expect(a.KeyVars[0]).To(Equal("AGENTSNAP_API_KEY"), "every API reads AGENTSNAP_API_KEY first")
			Expect(text).To(ContainSubstring(strings.Join(a.KeyVars[1:], " then ")+" ("+a.Name+")"), "the help says where %s's key comes from", a.Name)
		}
	})

	It("says which provider a live recording writes by default: each API's own name", func() {
		r := cli("", nil, "help", "record")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		text := strings.Join(strings.Fields(r.stdout), " ")
		Expect(text).To(ContainSubstring("(default: playbook; with --live the API's name, " + apis.Provider(apis.All()[0]) + " for " + apis.All()[0].Name + ")"))
		for _, a := range apis.All()[1:] {
			Expect(apis.Provider(a)).To(Equal(a.Name), "only the default API records a provider other than its name")
		}
	})
})

var _ = Describe("agentsnap help new", func() {
	It("names each way to record the scenario that new prints", func() {
		help := cli("", nil, "help", "new")
		Expect(help.code).To(Equal(exitOK), help.stderr)
		r := cli(GinkgoT().TempDir(), nil, "new", "spawn/x")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		_, ways, found := strings.Cut(r.stdout, "then record it:\n")
		Expect(found).To(BeTrue(), r.stdout)
		lines := strings.Split(strings.TrimSpace(ways), "\n")
		Expect(lines).To(HaveLen(3))
		for _, l := range lines {
			cmd, _, _ := strings.Cut(strings.Join(strings.Fields(l), " "), " with ")
			cmd = strings.NewReplacer("go tool agentsnap", "agentsnap", "fixtures/spawn/x", "DIR/CATEGORY/NAME", "spawn/x", "CATEGORY/NAME").Replace(cmd)
			Expect(help.stdout).To(ContainSubstring("    "+cmd+"\n"), "help new lacks %q", cmd)
		}
	})
})
