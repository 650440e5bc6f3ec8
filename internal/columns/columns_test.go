package columns_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/internal/columns"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestColumns(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "columns")
}

var _ = Describe("Align", func() {
	It("pads each column to its widest cell, numbers on the left, with no trailing spaces", func() {
		Expect(columns.Align([][]string{{"session", "calls", "note"}, {"root", "12", ""}, {"root/call_ä", "3", "x"}}, 1)).To(Equal([]string{
			"session      calls  note",
			"root            12",
			"root/call_ä      3  x",
		}))
	})

	It("leaves out a column empty in every row", func() {
		Expect(columns.Align([][]string{{"a", "", "b"}, {"cc", "", "d"}})).To(Equal([]string{"a   b", "cc  d"}))
	})
})
