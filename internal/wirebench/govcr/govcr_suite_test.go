package govcr_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestGovcr(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "go-vcr side of the replay benchmark")
}
