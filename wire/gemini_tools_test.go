package wire_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/llm/gemini"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// geminiPath is where the genai SDK and the Vercel AI SDK stream a call of
// gemini-2.5-flash.
const geminiPath = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"

// genaiDeclaring is a request of google.golang.org/genai for a
// FunctionDeclaration with a Behavior and a ResponseJsonSchema, as the
// SDK sends it.
const genaiDeclaring = `{"contents":[{"parts":[{"text":"What shipped in v2.4?"}],"role":"user"}],"generationConfig":{},` +
	`"systemInstruction":{"parts":[{"text":"You research one release."}],"role":"user"},` +
	`"tools":[{"functionDeclarations":[{"behavior":"NON_BLOCKING","description":"The release notes of one version.","name":"release_notes",` +
	`"parametersJsonSchema":{"properties":{"version":{"type":"string"}},"required":["version"],"type":"object"},` +
	`"responseJsonSchema":{"properties":{"notes":{"type":"string"}},"type":"object"}}]}]}`

var _ = Describe("genai's function declarations that say more than a spec, through the wire layer", func() {
	It("reach the live model as the agent sent them, and a change to one is drift", NodeTimeout(time.Minute), func(ctx SpecContext) {
		model := &geminiModelServer{}
		srv := httptest.NewServer(model)
		DeferCleanup(srv.Close)
		drv, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "test-key-not-secret"})
		Expect(err).NotTo(HaveOccurred())
		sent := sending(geminiPath, genaiDeclaring)
		dir := recordSent(ctx, drv, srv.URL, "gemini-2.5-flash", sent)

		var want struct{ Tools any }
		Expect(json.Unmarshal([]byte(genaiDeclaring), &want)).To(Succeed())
		model.mu.Lock()
		Expect(model.bodies).To(HaveLen(1))
		Expect(model.bodies[0]["tools"]).To(Equal(want.Tools), "behavior and responseJsonSchema, as sent")
		model.mu.Unlock()

		blocking := sending(geminiPath, strings.Replace(genaiDeclaring, `"NON_BLOCKING"`, `"BLOCKING"`, 1))
		expectSettingDrift(ctx, dir, sent, blocking, "tools")
	})
})
