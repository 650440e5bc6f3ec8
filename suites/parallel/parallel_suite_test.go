package parallel_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestParallel(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "parallel scenarios")
}

var _ = suitekit.ReportGoldens("parallel")
