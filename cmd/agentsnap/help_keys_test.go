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
