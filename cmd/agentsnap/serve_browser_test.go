package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// chromium is where CI installs Chromium (apt-get install chromium).
const chromium = "/usr/bin/chromium"

// agentPage is a web page with an agent's model call, as an SDK in a
// browser makes it (the headers of the openai package), and a web page's
// attempts on a model endpoint it was not allowed to call.
const agentPage = `<!doctype html><title>agent</title><script>
async function callModel(base) {
  const r = await fetch(base + "/chat/completions", {method: "POST", headers: {
    "Content-Type": "application/json", "Accept": "application/json", "Authorization": "Bearer unused",
    "X-Stainless-Lang": "js", "X-Stainless-Package-Version": "6.49.0", "X-Stainless-OS": "Unknown",
    "X-Stainless-Arch": "unknown", "X-Stainless-Runtime": "browser:chrome", "X-Stainless-Runtime-Version": "1",
    "X-Stainless-Retry-Count": "0", "X-Stainless-Timeout": "600", "Agentsnap-Session": "root"},
    body: JSON.stringify({model: "m", stream: true, messages: [
      {role: "system", content: "You are terse."}, {role: "user", content: "Reply OK."}]})});
  const text = await r.text();
  if (!r.ok) return "HTTP " + r.status + ": " + text;
  let out = "";
  for (const line of text.split("\n")) {
    if (line.startsWith("data: {")) out += JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? "";
  }
  return out;
}
async function attack(base) {
  const body = JSON.stringify({model: "m", stream: true, messages: [{role: "user", content: "Spend the key."}]});
  // A "simple" request: no preflight, the answer unreadable, the request sent all the same.
  await fetch(base + "/chat/completions", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body});
  // A path that would clear and recolour the terminal serve notes refusals on.
  await fetch(base + "/%1b[2J%1b[31mforged%0a", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body});
  try {
    await fetch(base + "/chat/completions", {method: "POST", headers: {"Content-Type": "application/json"}, body});
    return "the JSON call went through";
  } catch (e) {
    return "blocked";
  }
}
</script>`

// requireChromium skips the spec when Chromium is missing, or fails it
// with AGENTSNAP_REQUIRE_BROWSER=1 (CI sets it).
func requireChromium() {
	if _, err := os.Stat(chromium); err != nil {
		msg := "serve: the browser spec needs Chromium at " + chromium + ": run `apt-get update && apt-get install -y chromium` (.ci/run does)"
		if os.Getenv("AGENTSNAP_REQUIRE_BROWSER") == "1" {
			Fail(msg)
		}
		Skip(msg)
	}
}

// evalAsync runs a JavaScript expression in the page and awaits its promise.
func evalAsync(tab context.Context, expr string) string {
	GinkgoHelper()
	out, err := chromedp.Run(tab, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	Expect(err).NotTo(HaveOccurred(), expr)
	return out
}

var _ = Describe("agentsnap serve and web pages in a real browser", Label("browser"), func() {
	It("serves the agent of an --allow-origin page through CORS, and spends nothing on another page's calls", SpecTimeout(2*time.Minute), func(ctx SpecContext) {
		requireChromium()
		pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, agentPage)
		}))
		DeferCleanup(pages.Close)
		_, port, err := net.SplitHostPort(pages.Listener.Addr().String())
		Expect(err).NotTo(HaveOccurred())
		allowed, other := "http://localhost:"+port, "http://127.0.0.1:"+port

		live, got := liveServer()
		dir := liveScenario()
		s := startServe(map[string]string{"AGENTSNAP_API_KEY": "sk-browser-test-0123456789"}, "serve", dir, "--record", "--runtime", "browser-agent",
			"--live", "--base-url", live.URL+"/v1", "--model", "real-model", "--allow-origin", allowed)

		// Chromium puts its singleton socket in a folder of its own under
		// TMPDIR and leaves it there when killed: both go in the spec's.
		profile := GinkgoT().TempDir()
		alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox,
			chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(profile), chromedp.Env("TMPDIR="+profile))
		DeferCleanup(cancelAlloc)
		tab, cancelTab := chromedp.NewContext(alloc)
		DeferCleanup(cancelTab)

		By("calling the model from the allowed page, its preflight answered")
		Expect(chromedp.Do(tab, chromedp.Navigate(allowed+"/"))).To(Succeed())
		Expect(evalAsync(tab, fmt.Sprintf("callModel(%q)", s.url))).To(Equal("OK"))
		Expect(got.Load()).To(BeEquivalentTo(1))

		By("refusing another page's text/plain POST and JSON call before the model")
		Expect(chromedp.Do(tab, chromedp.Navigate(other+"/"))).To(Succeed())
		Expect(evalAsync(tab, fmt.Sprintf("attack(%q)", s.url))).To(Equal("blocked"))
		Expect(got.Load()).To(BeEquivalentTo(1), "the live model was called for the other page")

		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(out).To(HavePrefix("recorded " + dir + ": 1 session, 1 model call\n"))
		Expect(stderr).To(ContainSubstring(`refused POST /v1/chat/completions (403): a cross-site request from origin "` + other + `"`))
		Expect(stderr).To(ContainSubstring(`refused OPTIONS /v1/chat/completions (403): a cross-site request from origin "` + other + `"`))
		Expect(stderr).To(ContainSubstring(`refused POST /v1/%1b[2J%1b[31mforged%0a (403)`))
		Expect(stderr).NotTo(ContainSubstring("\x1b"))
	})
})
