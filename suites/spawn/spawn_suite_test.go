package spawn_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSpawn(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "spawn scenarios")
}

var _ = suitekit.ReportGoldens("spawn")
