package loop_test

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/agent/internal/loop"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the subagent tools' specs", func() {
	It("are the same on every call, whatever a caller did to the last one", func() {
		for _, tool := range []loop.Tool{loop.SpawnTool(), loop.ForkTool()} {
			first := tool.Spec()
			want := string(first.Parameters)
			Expect(json.Valid(first.Parameters)).To(BeTrue())
			mine := append(first.Parameters, 'A')
			first.Name = "renamed"
			next := tool.Spec()
			theirs := append(next.Parameters, 'B') // must not write over mine
			Expect(mine[len(mine)-1]).To(Equal(byte('A')))
			Expect(string(theirs[:len(theirs)-1])).To(Equal(want))
			Expect(string(next.Parameters)).To(Equal(want))
			Expect(next.Name).To(Equal(map[bool]string{true: loop.ForkToolName, false: loop.SpawnToolName}[tool == loop.ForkTool()]))
		}
	})
})
