package session_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

// CreationOrder reads ChildID's "#n" only when every child of a call id
// has such an id: one child whose id is another tool's makes every "#n"
// of that id a look-alike, and ties of createdAt keep the order given.
var _ = Describe("CreationOrder of one call id's children, only some with ChildID's ids", func() {
	It("keeps the order given for a createdAt tie, wherever the odd id stands", func() {
		kid := func(id string) *session.Header {
			return &session.Header{ID: id, CreatedAt: 1000, ParentSession: "root", ParentCallID: "call_0"}
		}
		for _, kids := range [][]*session.Header{
			{kid("root/call_0#3"), kid("other-runtime-id"), kid("root/call_0#2")},
			{kid("root/call_0#3"), kid("root/call_0#2"), kid("other-runtime-id")},
			{kid("other-runtime-id"), kid("root/call_0#3"), kid("root/call_0#2")},
		} {
			Expect(session.CreationOrder(kids)).To(Equal([]int{0, 1, 2}), "given %s, %s, %s", kids[0].ID, kids[1].ID, kids[2].ID)
		}
		numbered := []*session.Header{kid("root/call_0#3"), kid("root/call_0"), kid("root/call_0#2")}
		Expect(session.CreationOrder(numbered)).To(Equal([]int{1, 2, 0}), "every child numbered: by n")
	})
})
