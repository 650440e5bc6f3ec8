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
})
