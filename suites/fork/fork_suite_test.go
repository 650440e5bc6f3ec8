package fork_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestFork(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "fork scenarios")
}

var _ = suitekit.ReportGoldens("fork")
