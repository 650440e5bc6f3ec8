package mixed_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestMixed(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "mixed scenarios")
}

var _ = suitekit.ReportGoldens("mixed")
