package envvar_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/envvar"
)

func TestEnvvar(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "envvar")
}

var _ = Describe("Truthy", func() {
	DescribeTable("switches nothing on for an empty or negative value, in any case, around white space",
		func(v string) { Expect(envvar.Truthy(v)).To(BeFalse()) },
		Entry(nil, ""), Entry(nil, "0"), Entry(nil, "false"), Entry(nil, "no"), Entry(nil, "off"),
		Entry(nil, "  "), Entry(nil, "FALSE"), Entry(nil, " Off\n"), Entry(nil, "No"),
	)

	DescribeTable("switches on for anything else",
		func(v string) { Expect(envvar.Truthy(v)).To(BeTrue()) },
		Entry(nil, "1"), Entry(nil, "true"), Entry(nil, "yes"), Entry(nil, "on"), Entry(nil, " TRUE "), Entry(nil, "00"), Entry(nil, "offline"),
	)

	It("reads the variable by name", func() {
		GinkgoT().Setenv("AGENTSNAP_TEST_SWITCH", " On ")
		Expect(envvar.On("AGENTSNAP_TEST_SWITCH")).To(BeTrue())
		GinkgoT().Setenv("AGENTSNAP_TEST_SWITCH", "off")
		Expect(envvar.On("AGENTSNAP_TEST_SWITCH")).To(BeFalse())
		Expect(envvar.On("AGENTSNAP_TEST_UNSET_0123")).To(BeFalse())
	})
})
