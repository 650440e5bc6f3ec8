package report_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/report"
)

// chromiumPath is where CI installs Chromium (apt-get install chromium).
const chromiumPath = "/usr/bin/chromium"

// screenshotName is the artifact the browser spec writes: a picture of a
// failing scenario, for CI artifacts and the README.
const screenshotName = "report-screenshot.png"

// requireChromium skips the spec, saying how to run it, when Chromium is
// missing — or fails it when AGENTSNAP_REQUIRE_BROWSER=1 (CI sets it, so CI
// never skips it). AGENTSNAP_SKIP_BROWSER=1 skips it.
func requireChromium() {
	if os.Getenv("AGENTSNAP_SKIP_BROWSER") == "1" {
		Skip("report: browser spec skipped: AGENTSNAP_SKIP_BROWSER=1")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		msg := "report: the browser spec needs Chromium at " + chromiumPath + ": run `apt-get update && apt-get install -y chromium` (.ci/run does)"
		if os.Getenv("AGENTSNAP_REQUIRE_BROWSER") == "1" {
			Fail(msg)
		}
		Skip(msg)
	}
}

// startBrowser starts a headless Chromium with a new empty profile and no
// background networking, and returns a tab context. listen sees every event
// of the tab from its creation on.
func startBrowser(ctx context.Context, listen func(ev any)) context.Context {
	GinkgoHelper()
	profile := GinkgoT().TempDir()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.UserDataDir(profile),
		// Chromium puts its singleton socket in a folder of its own under
		// TMPDIR and leaves it there when killed.
		chromedp.Env("TMPDIR="+profile),
		chromedp.WindowSize(1280, 900),
	)
	DeferCleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithListener(listen))
	DeferCleanup(cancelTab)
	return tab
}

// eval runs a JavaScript expression in the page and returns its value.
func eval[T any](ctx context.Context, expr string) T {
	GinkgoHelper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	Expect(err).NotTo(HaveOccurred(), "evaluating %s", expr)
	return v
}

// writtenPage writes the report of a failing and a passing scenario to a
// file and returns its file: URL.
func writtenPage() string {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), "report.html")
	f, err := os.Create(path)
	Expect(err).NotTo(HaveOccurred())
	Expect(report.Write(f, "agentsnap report", []report.Scenario{failing(), passing()})).To(Succeed())
	Expect(f.Close()).To(Succeed())
	return (&url.URL{Scheme: "file", Path: path}).String()
}

var _ = Describe("the report in a browser", Label("browser"), func() {
	It("opens from disk, expands an inherited prefix, highlights the first divergence and fetches nothing", SpecTimeout(2*time.Minute), func(ctx SpecContext) {
		requireChromium()
		page := writtenPage()

		var mu sync.Mutex
		var requests []string
		tab := startBrowser(ctx, func(ev any) {
			if e, ok := ev.(*network.EventRequestWillBeSent); ok {
				mu.Lock()
				requests = append(requests, e.Request.URL)
				mu.Unlock()
			}
		})
		Expect(chromedp.Do(tab, chromedp.Navigate(page), chromedp.WaitReady(chromedp.ID("s1")))).To(Succeed())

		By("showing the failing scenario expanded and the passing one collapsed")
		Expect(eval[bool](tab, `document.getElementById("s1").open`)).To(BeTrue())
		Expect(eval[bool](tab, `document.getElementById("s2").open`)).To(BeFalse())

		By("expanding the fork child's inherited prefix on a click")
		seed := `document.querySelector("#s1-session-2 details.seed")`
		Expect(eval[string](tab, seed+`.querySelector("summary").textContent`)).To(Equal("inherited from root: 9 events, turn 1"))
		Expect(eval[bool](tab, seed+`.open`)).To(BeFalse())
		Expect(eval[bool](tab, seed+`.querySelector(".seedbody").checkVisibility()`)).To(BeFalse(), "collapsed before the click")
		Expect(chromedp.Do(tab, chromedp.Click(chromedp.CSS("#s1-session-2 details.seed > summary")))).To(Succeed())
		Expect(eval[bool](tab, seed+`.open`)).To(BeTrue())
		Expect(eval[bool](tab, seed+`.querySelector(".seedbody").checkVisibility()`)).To(BeTrue(), "visible after the click")
		Expect(eval[string](tab, seed+`.querySelector(".seedbody").innerText`)).To(ContainSubstring("The secret word is SAFFRON."))

		By("highlighting the first divergence")
		div := `document.getElementById("s1-first-divergence")`
		Expect(eval[bool](tab, div+`.classList.contains("divergence")`)).To(BeTrue())
		Expect(eval[bool](tab, div+`.checkVisibility()`)).To(BeTrue())
		Expect(eval[string](tab, `getComputedStyle(`+div+`).outlineStyle`)).To(Equal("solid"))
		Expect(eval[string](tab, `getComputedStyle(`+div+`).backgroundColor`)).To(Equal("rgb(255, 216, 211)"))

		By("jumping to it from the summary")
		Expect(chromedp.Do(tab, chromedp.Click(chromedp.CSS(`table.summary a.jump[href="#s1-first-divergence"]`)))).To(Succeed())
		Expect(eval[string](tab, `location.hash`)).To(Equal("#s1-first-divergence"))
		Expect(eval[bool](tab, `(() => { const r = `+div+`.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`)).To(BeTrue(), "scrolled into view")

		By("opening a collapsed scenario that a link points to")
		Expect(chromedp.Do(tab, chromedp.Click(chromedp.CSS(`table.summary a[href="#s2"]`)))).To(Succeed())
		Expect(eval[bool](tab, `document.getElementById("s2").open`)).To(BeTrue())

		By("taking a picture of the failing scenario")
		// As a reader first sees it: the inherited prefix collapsed again.
		Expect(eval[bool](tab, `(() => { document.getElementById("s2").open = false; `+seed+`.open = false; return true; })()`)).To(BeTrue())
		png, err := chromedp.Run(tab, chromedp.Screenshot(chromedp.ID("s1")))
		Expect(err).NotTo(HaveOccurred())
		Expect(png).To(HavePrefix("\x89PNG"))
		dir := os.Getenv("AGENTSNAP_ARTIFACTS")
		if dir == "" {
			dir = GinkgoT().TempDir()
		}
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		shot := filepath.Join(dir, screenshotName)
		Expect(os.WriteFile(shot, png, 0o644)).To(Succeed())
		AddReportEntry("report screenshot", shot)
		GinkgoWriter.Printf("report screenshot: %s\n", shot)

		By("fetching nothing but the report itself")
		mu.Lock()
		defer mu.Unlock()
		GinkgoWriter.Printf("requests: %q\n", requests)
		Expect(requests).To(ContainElement(page), "the listener saw the page load")
		for _, u := range requests {
			if u != page && !strings.HasPrefix(u, "data:") {
				Fail("report: the page fetched " + u + "; it must load nothing but itself (all requests: " + strings.Join(slices.Clone(requests), ", ") + ")")
			}
		}
	})
})
