package wire_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/wire"
)

var _ = Describe("a call's key", func() {
	It("is fmt's session:turn:step:attempt, for any id and numbers", func() {
		for _, id := range []string{"", "root", "root/fork-1", strings.Repeat("x", 200)} {
			for _, n := range [][3]int{{1, 1, 1}, {12, 3, 45}, {0, -1, 1 << 40}} {
				r := &llm.Request{Session: llm.SessionRef{ID: id}, Turn: n[0], Step: n[1], Attempt: n[2]}
				Expect(wire.CallKey(r)).To(Equal(fmt.Sprintf("%s:%d:%d:%d", id, n[0], n[1], n[2])))
			}
		}
	})
})
