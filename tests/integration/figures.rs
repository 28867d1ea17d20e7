//! The HTML report and its figures, as a person would see them: `report.html` is
//! well-formed, holds one figure per expected series with its axis labels and no NaN
//! coordinate, works from the cache alone, and a headless Chromium loads and draws it
//! (with `CAMPAIGN_BROWSER=1`, which `.ci/run` sets where a browser is installed; then
//! it never skips). `campaign simulate --plot` draws one run's figures.

use crate::common::{campaign, column, parse_xml as parse, read_csv, spec_command, trace_path};
use std::collections::BTreeMap;
use std::path::Path;

/// The jobs of KTH-SP2 that a campaign simulates, counted from the trace itself: its
/// records with an allocated size (field 5) of at least one (one record has -1 and is
/// dropped by the default cleaning).
fn kth_jobs() -> u64 {
    use std::io::Read as _;
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(trace_path("KTH-SP2-1996-2.1-cln")).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .filter(|l| !l.trim_start().starts_with(';') && !l.trim().is_empty())
        .filter(|l| l.split_whitespace().nth(4).unwrap().parse::<i64>().unwrap() >= 1)
        .count() as u64
}

/// Three studies on KTH-SP2: replay models compared (rigid, a60) under EASY;
/// interarrival shaking with 3 seeds under EASY; a load sweep (0.6, 0.8) with and
/// without shaking (2 seeds) under EASY and FCFS. One table with a published value.
fn write_spec(dir: &Path, figures: &str) -> std::path::PathBuf {
    // A copy of the trace, so that a test can take it away.
    let trace = dir.join("KTH.swf.gz");
    if !trace.is_file() {
        std::fs::copy(trace_path("KTH-SP2-1996-2.1-cln"), &trace).unwrap();
    }
    let spec = dir.join("figs.toml");
    std::fs::write(
        &spec,
        format!(
            r#"name = "figs"
description = "figures & tables <test>"
[workloads.KTH]
trace = {:?}
[schedulers]
easy = {{ kind = "easy" }}
fcfs = {{ kind = "fcfs" }}
[replays]
rigid = "rigid"
a60 = "a60"
[transforms]
original = {{}}
load = {{ load = [0.6, 0.8] }}
[shakes]
original = {{}}
s = {{ attribute = "interarrival", degree = 60, seeds = "1..=3" }}
s2 = {{ attribute = "interarrival", degree = 60, seeds = "1..=2" }}
[[study]]
name = "replay"
scheduler = "easy"
replay = ["rigid", "a60"]
transform = "original"
shake = "original"
[[study]]
name = "seeds"
scheduler = "easy"
replay = "rigid"
transform = "original"
shake = ["original", "s"]
[[study]]
name = "sweep"
scheduler = ["easy", "fcfs"]
replay = "rigid"
transform = "load"
shake = ["original", "s2"]
[[table]]
name = "t"
study = "replay"
rows = ["replay"]
metrics = ["wait_mean_s"]
expected_source = "made up"
[[expected]]
table = "t"
replay = "rigid"
wait_mean_s = 1000.0
{figures}"#,
            trace.display().to_string()
        ),
    )
    .unwrap();
    spec
}

/// `campaign run SPEC` with its cache and outputs in `dir`; the text of its report.html.
fn run_report(dir: &Path, spec: &Path) -> String {
    let out = dir.join("out");
    spec_command("run", spec, &dir.join("cache"), &out)
        .assert()
        .success();
    std::fs::read_to_string(out.join("report.html")).unwrap()
}

/// The texts of an SVG's `<text>` elements, with how often each appears.
fn texts(svg: &roxmltree::Node<'_, '_>) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for t in svg.descendants().filter(|n| n.tag_name().name() == "text") {
        let s: String = t
            .descendants()
            .filter(|n| n.is_text())
            .filter_map(|n| n.text())
            .collect();
        *out.entry(s.trim().to_string()).or_insert(0) += 1;
    }
    out
}

/// The text of a node and its descendants, trimmed.
fn text_of(n: &roxmltree::Node<'_, '_>) -> String {
    let s: String = n
        .descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect();
    s.trim().to_string()
}

fn circles(svg: &roxmltree::Node<'_, '_>) -> usize {
    svg.descendants()
        .filter(|n| n.tag_name().name() == "circle")
        .count()
}

/// Every axis labels its ticks alike: the numeric texts of one axis (the y axis's are
/// right-aligned at one x, the x axis's centred on one y, drawn one after another) have
/// one number of decimals (`0.900` never beside `1`), in one notation.
fn assert_one_format_per_axis(svg: &roxmltree::Node<'_, '_>, what: &str) {
    // Runs of consecutive numeric texts at one (anchor, x or y).
    let mut axes: Vec<((String, String), Vec<String>)> = Vec::new();
    for t in svg.descendants().filter(|n| n.tag_name().name() == "text") {
        let text = text_of(&t);
        if text.parse::<f64>().is_err() {
            continue;
        }
        let anchor = t.attribute("text-anchor").unwrap_or("").to_string();
        let at = if anchor == "end" {
            t.attribute("x")
        } else {
            t.attribute("y")
        };
        let key = (anchor, at.unwrap_or("").to_string());
        match axes.last_mut() {
            Some((k, labels)) if *k == key => labels.push(text),
            _ => axes.push((key, vec![text])),
        }
    }
    let shape = |s: &str| {
        let exponent = s.contains('e');
        let decimals = s
            .split('e')
            .next()
            .and_then(|m| m.split_once('.'))
            .map_or(0, |(_, d)| d.len());
        (exponent, decimals)
    };
    assert!(!axes.is_empty(), "{what}: no numeric tick");
    for (axis, labels) in &axes {
        let first = shape(&labels[0]);
        assert!(
            labels.iter().all(|l| shape(l) == first),
            "{what}: axis {axis:?} mixes formats: {labels:?}"
        );
    }
}

/// No attribute of any element says NaN or inf.
fn assert_finite(doc: &roxmltree::Document<'_>, what: &str) {
    for n in doc.descendants() {
        for a in n.attributes() {
            let v = a.value();
            assert!(
                !v.contains("NaN") && !v.contains("inf"),
                "{what}: <{}> {}={v:?}",
                n.tag_name().name(),
                a.name()
            );
        }
    }
}

/// The ids of the page's figures, in order.
fn figure_ids<'a>(doc: &'a roxmltree::Document<'a>) -> Vec<&'a str> {
    doc.descendants()
        .filter(|n| n.has_tag_name("figure"))
        .filter_map(|n| n.attribute("id"))
        .collect()
}

/// The `<svg>` of the figure whose file stem starts with `prefix` (exactly one).
fn figure<'a>(doc: &'a roxmltree::Document<'a>, prefix: &str) -> roxmltree::Node<'a, 'a> {
    let found: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("figure"))
        .filter(|n| {
            n.attribute("id")
                .is_some_and(|id| id.starts_with(&format!("figure-{prefix}")))
        })
        .collect();
    assert_eq!(found.len(), 1, "figures starting with {prefix}");
    found[0]
        .descendants()
        .find(|n| n.tag_name().name() == "svg")
        .unwrap()
}

#[test]
fn report_html_has_the_figures_of_the_axes() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(dir.path(), "");
    let (cache, out) = (dir.path().join("cache"), dir.path().join("out"));
    spec_command("run", &spec, &cache, &out)
        .arg("--summaries")
        .assert()
        .success();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let doc = parse(&html);
    assert_finite(&doc, "report.html");
    assert_eq!(doc.root_element().tag_name().name(), "html");
    // Self-contained: nothing fetched (no script, stylesheet link, image or font URL).
    for n in doc.descendants() {
        assert!(!n.has_tag_name("script") && !n.has_tag_name("link") && !n.has_tag_name("img"));
    }
    assert!(!html.contains("src=") && !html.contains("url(") && !html.contains("@import"));
    assert!(html.contains("figures &amp; tables &lt;test&gt;"));
    // The table and its comparison with the published value.
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("table"))
            .count(),
        2
    );
    assert!(html.contains("made up"));
    // By the axes: the replay study compares rigid and a60 in 6 figures (KTH has a
    // calendar, so hours of the week too) and in one comparison of its table's metric
    // (wait_mean_s); the seeds study and the sweep study draw their 2 default metrics
    // each.
    let figures: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("figure"))
        .collect();
    assert_eq!(figures.len(), 6 + 1 + 2 + 2);
    let files = std::fs::read_dir(out.join("figures")).unwrap().count();
    assert_eq!(files, figures.len());
    for f in &figures {
        let id = f.attribute("id").unwrap().strip_prefix("figure-").unwrap();
        let svg = std::fs::read_to_string(out.join("figures").join(format!("{id}.svg"))).unwrap();
        assert_finite(&parse(&svg), id);
        assert_eq!(
            f.descendants()
                .filter(|n| n.tag_name().name() == "svg")
                .count(),
            1,
            "{id}"
        );
        // The title inside the SVG (its first texts, wrapped), as the page's heading.
        let heading = text_of(&f.descendants().find(|n| n.has_tag_name("h3")).unwrap());
        let svg = f
            .descendants()
            .find(|n| n.tag_name().name() == "svg")
            .unwrap();
        let words: Vec<String> = svg
            .descendants()
            .filter(|n| n.tag_name().name() == "text")
            .map(|t| text_of(&t))
            .collect();
        let mut title = String::new();
        for w in &words {
            if title.len() >= heading.len() {
                break;
            }
            title = if title.is_empty() {
                w.clone()
            } else {
                format!("{title} {w}")
            };
        }
        assert_eq!(title, heading, "{id}");
        assert!(heading.contains("study "), "{id}: {heading}");
        assert!(heading.contains("workload KTH"), "{id}: {heading}");
        assert_one_format_per_axis(&svg, id);
    }
    // The page: the summary first (runs, failures), the comparisons, the tables, then
    // the other figures.
    let headings: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("h2"))
        .map(|n| text_of(&n))
        .collect();
    assert_eq!(headings, ["Summary", "Comparisons", "Tables", "Figures"]);
    // 2 runs in the replay study (2 replay models), 5 in the seeds study (original,
    // the baseline of s and its 3 seeds), 16 in the sweep (2 schedulers × 2 loads ×
    // (original, the baseline of s2 and its 2 seeds)).
    assert!(html.contains("23 runs (23 ok)"), "{html}");
    assert!(html.contains("No run failed."));
    assert!(html.contains("study sweep: 16 runs; "));
    assert!(html.contains("; scheduler (2): easy, fcfs; "));
    assert!(html.contains("; shake (2): original, s2; 2 seeds (8 shaken runs)</li>"));
    // Timeline: three panels sharing one legend of both series, and their axis labels.
    let t = texts(&figure(&doc, "timeline-replay"));
    assert_eq!((t["rigid"], t["a60"], t["Time (days)"]), (1, 1, 3));
    let t = texts(&figure(&doc, "occupancy-replay"));
    assert_eq!((t["rigid"], t["a60"], t["Time (days)"]), (1, 1, 2));
    for kind in ["user_lateness", "activity", "queue_length", "hour_of_week"] {
        let t = texts(&figure(&doc, &format!("{kind}-replay")));
        assert_eq!((t["rigid"], t["a60"]), (1, 1), "{kind}");
    }
    // Hours of the week: a tick a day, labelled by its day.
    let t = texts(&figure(&doc, "hour_of_week-replay"));
    for day in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] {
        assert_eq!(t[day], 1, "{day}");
    }
    // The replay study's comparison: its table's metric, a category per replay model
    // with its one run as a dot, nothing shaken so nothing marked.
    let compared = figure(&doc, "seeds-wait_mean_s-replay");
    assert_eq!(circles(&compared), 2);
    let t = texts(&compared);
    assert_eq!((t["rigid"], t["a60"], t["Mean wait (s)"]), (1, 1, 1));
    assert!(!t.contains_key("unshaken"));
    // Seeds: one dot per shaken seed (3), the unshaken value marked.
    let seeds = figure(&doc, "seeds-bounded_slowdown_mean-seeds");
    assert_eq!(circles(&seeds), 3);
    let t = texts(&seeds);
    assert_eq!((t["unshaken"], t["Mean bounded slowdown"]), (1, 1));
    // Sweep: one series per scheduler, each with its shaken mean and band and its own
    // unshaken line, against the load; the legend names the schedulers and keys the
    // styles once.
    let sweep = figure(&doc, "sweep-wait_mean_s-sweep");
    let t = texts(&sweep);
    for label in ["easy", "fcfs", "shaken: mean, 5–95 %", "unshaken", "Load"] {
        assert_eq!(t.get(label), Some(&1), "{label}: {t:?}");
    }
    assert!(!t.keys().any(|k| k.contains("(unshaken)")), "{t:?}");
    // A band per scheduler, each in its own colour.
    let bands: std::collections::BTreeSet<&str> = sweep
        .descendants()
        .filter(|n| n.tag_name().name() == "polygon")
        .filter_map(|n| n.attribute("fill"))
        .collect();
    assert_eq!(bands.len(), 2, "{bands:?}");
    // Each scheduler's unshaken line is dashed (drawn as many short segments) in its
    // band's colour: more than the one solid mean line and the legend's sample.
    for colour in &bands {
        let segments = sweep
            .descendants()
            .filter(|n| n.tag_name().name() == "polyline")
            .filter(|n| n.attribute("stroke") == Some(colour))
            .count();
        assert!(segments > 3, "{colour}: {segments}");
    }
    // The timeline's data: every job of the trace submitted and ended once.
    let (header, rows) = read_csv(&out.join("summaries/timeline.csv"));
    let (study, replay) = (column(&header, "study"), column(&header, "replay"));
    let (sub, fin) = (column(&header, "submitted"), column(&header, "finished"));
    let sum = |c: usize| -> u64 {
        rows.iter()
            .filter(|r| r[study] == "replay" && r[replay] == "rigid")
            .map(|r| r[c].parse::<u64>().unwrap())
            .sum()
    };
    let jobs = kth_jobs();
    assert_eq!(jobs, 28_475);
    assert_eq!((sum(sub), sum(fin)), (jobs, jobs));

    // From the cache alone, the trace gone: the same page.
    std::fs::remove_file(dir.path().join("KTH.swf.gz")).unwrap();
    let again = dir.path().join("again");
    spec_command("report", &spec, &cache, &again)
        .assert()
        .success();
    let html2 = std::fs::read_to_string(again.join("report.html")).unwrap();
    assert_eq!(html2, html);
}

/// `[[figure]]` chooses the figures; bad ones are refused before any run.
#[test]
fn figure_sections_choose_and_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write_spec(
        dir.path(),
        "[[figure]]\nkind = \"seeds\"\nstudy = \"seeds\"\nmetrics = [\"wait_mean_s\"]\n\
         [[figure]]\nkind = \"queue-length\"\nstudy = \"replay\"\nseries = [\"replay\"]\n\
         replay = \"a60\"\n",
    );
    let html = run_report(dir.path(), &spec);
    let doc = parse(&html);
    let ids = figure_ids(&doc);
    assert_eq!(
        ids,
        [
            "figure-seeds-wait_mean_s-seeds",
            "figure-queue_length-replay"
        ]
    );
    let t = texts(&figure(&doc, "queue_length-replay"));
    assert!(t.contains_key("a60") && !t.contains_key("rigid"));

    for (bad, says) in [
        ("kind = \"sweeps\"", "unknown figure kind \"sweeps\""),
        ("kind = \"sweep\"", "needs `x = \"AXIS\"`"),
        (
            "kind = \"sweep\"\nx = \"shake\"",
            "axis shake has no variant swept",
        ),
        (
            "kind = \"timeline\"\nmetrics = [\"wait_mean_s\"]",
            "takes no metrics",
        ),
        (
            "kind = \"seeds\"\nmetrics = [\"wait_men_s\"]",
            "unknown metric \"wait_men_s\"",
        ),
        ("kind = \"seeds\"\nreplay = \"a61\"", "a61"),
    ] {
        let spec = write_spec(dir.path(), &format!("[[figure]]\n{bad}\n"));
        campaign()
            .arg("plan")
            .arg(&spec)
            .assert()
            .failure()
            .stderr(predicates::str::contains(says));
    }
}

/// `campaign simulate --plot DIR`: one run's figures, each a well-formed SVG.
#[test]
fn simulate_plot_draws_one_runs_figures() {
    let dir = tempfile::tempdir().unwrap();
    let plots = dir.path().join("plots");
    campaign()
        .arg("simulate")
        .arg(trace_path("KTH-SP2-1996-2.1-cln"))
        .arg("--plot")
        .arg(&plots)
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(&plots)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "activity.svg",
            "bounded-slowdown.svg",
            "hour-of-week.svg",
            "occupancy.svg",
            "queue-length.svg",
            "timeline.svg",
            "user-lateness.svg",
            "wait.svg"
        ]
    );
    for n in &names {
        let svg = std::fs::read_to_string(plots.join(n)).unwrap();
        let doc = parse(&svg);
        assert_finite(&doc, n);
    }
    let svg = std::fs::read_to_string(plots.join("wait.svg")).unwrap();
    assert_eq!(texts(&parse(&svg).root_element())["Wait time (s)"], 1);
}

/// What the browser measures in every figure of a page (the script below, run in a
/// copy of report.html): each text's rendered font size (its computed font-size times
/// the scale the page draws the SVG at) and box, the legend's box (the one `#FAFAFA`
/// rectangle), and the boxes of the plotted marks (lines, bands, dots in the palette's
/// colours).
const MEASURE: &str = r##"<script>
const palette = ["#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B",
  "#E377C2", "#7F7F7F", "#BCBD22", "#17BECF"];
const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
const out = [];
for (const figure of document.querySelectorAll("figure")) {
  const svg = figure.querySelector("svg");
  const scale = svg.getBoundingClientRect().width / svg.width.baseVal.value;
  const texts = [...svg.querySelectorAll("text")].map(t => ({
    text: t.textContent.trim(),
    px: parseFloat(getComputedStyle(t).fontSize) * scale,
    box: box(t),
  }));
  const legend = [...svg.querySelectorAll("rect")]
    .filter(r => (r.getAttribute("fill") || "").toUpperCase() === "#FAFAFA").map(box);
  const marks = [...svg.querySelectorAll("polyline, polygon, circle")]
    .filter(e => palette.includes((e.getAttribute("stroke") || "").toUpperCase())
      || palette.includes((e.getAttribute("fill") || "").toUpperCase()))
    .map(box);
  out.push({ id: figure.id, texts, legend, marks });
}
const pre = document.createElement("pre");
pre.id = "measure";
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>"##;

/// A headless Chromium loads `report.html`, runs nothing from outside, and draws it: the
/// DOM it builds holds every figure's SVG, and its screenshot is a PNG of the page. In
/// a copy of the page with a measuring script, every text of every figure renders at
/// 12 px or more, every figure with a legend has it outside its plotted marks, and the
/// sweep's legend names its schedulers.
#[test]
fn a_headless_browser_draws_the_report() {
    if std::env::var("CAMPAIGN_BROWSER").is_ok_and(|v| v == "1") {
        let browser = ["chromium", "chromium-headless-shell", "chromium-browser"]
            .into_iter()
            .find(|b| which(b))
            .expect("CAMPAIGN_BROWSER=1 but no chromium on PATH");
        let dir = tempfile::tempdir().unwrap();
        let spec = write_spec(dir.path(), "");
        let (cache, out) = (dir.path().join("cache"), dir.path().join("out"));
        spec_command("run", &spec, &cache, &out).assert().success();
        let run = |page: &Path, args: &[&str]| {
            let url = format!("file://{}", page.display());
            let o = std::process::Command::new(browser)
                .args(["--headless", "--no-sandbox", "--disable-gpu"])
                .args(["--window-size=1000,4000"])
                .args(args)
                .arg(&url)
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{browser}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            o
        };
        let page = out.join("report.html");
        let dom = String::from_utf8(run(&page, &["--dump-dom"]).stdout).unwrap();
        let html = std::fs::read_to_string(&page).unwrap();
        let figures = html.matches("<figure ").count();
        assert_eq!(figures, 11);
        assert_eq!(dom.matches("<svg ").count(), figures);
        let shot = dir.path().join("report.png");
        run(&page, &[&format!("--screenshot={}", shot.display())]);
        let png = std::fs::read(&shot).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // IHDR: width and height, big-endian, at bytes 16..24.
        let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        assert_eq!((be(&png[16..20]), be(&png[20..24])), (1000, 4000));
        // A blank page compresses to a few KB; one with figures does not.
        assert!(png.len() > 50_000, "{} bytes", png.len());

        // Measured as drawn, at the page's width of 1000 px.
        let measured = out.join("measure.html");
        std::fs::write(
            &measured,
            html.replace("</body>", &format!("{MEASURE}</body>")),
        )
        .unwrap();
        let dom = String::from_utf8(run(&measured, &["--dump-dom"]).stdout).unwrap();
        let json = dom
            .split_once("<pre id=\"measure\">")
            .and_then(|(_, rest)| rest.split_once("</pre>"))
            .map(|(json, _)| {
                json.replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&")
            })
            .expect("the measuring script ran");
        let figures: serde_json::Value = serde_json::from_str(&json).unwrap();
        let figures = figures.as_array().unwrap();
        assert_eq!(figures.len(), 11);
        let rect = |v: &serde_json::Value| -> [f64; 4] {
            let a = v.as_array().unwrap();
            [0, 1, 2, 3].map(|i| a[i].as_f64().unwrap())
        };
        let overlap =
            |a: [f64; 4], b: [f64; 4]| a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
        let inside =
            |a: [f64; 4], b: [f64; 4]| a[0] >= b[0] && a[2] <= b[2] && a[1] >= b[1] && a[3] <= b[3];
        let mut smallest = f64::INFINITY;
        let mut legends = 0;
        for f in figures {
            let id = f["id"].as_str().unwrap();
            for t in f["texts"].as_array().unwrap() {
                if t["text"].as_str().unwrap().is_empty() {
                    continue;
                }
                let px = t["px"].as_f64().unwrap();
                smallest = smallest.min(px);
                assert!(px >= 12.0, "{id}: {:?} at {px:.1} px", t["text"]);
            }
            let marks: Vec<[f64; 4]> = f["marks"].as_array().unwrap().iter().map(rect).collect();
            for legend in f["legend"].as_array().unwrap().iter().map(rect) {
                legends += 1;
                // The legend's own samples lie inside it; no plotted mark reaches it.
                for m in marks.iter().filter(|m| !inside(**m, legend)) {
                    assert!(
                        !overlap(*m, legend),
                        "{id}: legend {legend:?} over a mark at {m:?}"
                    );
                }
            }
            if id == "figure-sweep-wait_mean_s-sweep" {
                let texts: Vec<&str> = f["texts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|t| t["text"].as_str())
                    .collect();
                for label in ["easy", "fcfs", "shaken: mean, 5–95 %", "unshaken"] {
                    assert!(texts.contains(&label), "{label}: {texts:?}");
                }
                assert_eq!(f["legend"].as_array().unwrap().len(), 1);
            }
        }
        // Legends: the 6 summaries of the replay study (rigid, a60), the 2 seeds figures
        // (their unshaken mark) and the 2 sweeps; not the replay comparison, whose
        // categories are named on its axis and which marks nothing.
        assert_eq!(legends, 6 + 2 + 2);
        eprintln!("smallest rendered text: {smallest:.1} px; {legends} legends");
    }
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// A model's replications: by default one `seeds` figure per metric, a category per
/// scheduler with a dot per replication (4 seeds × 2 schedulers = 8), and no unshaken
/// mark (a replication has no baseline).
#[test]
fn replications_show_their_spread_over_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("reps.toml");
    std::fs::write(
        &spec,
        "name = \"reps\"\n[workloads.lublin]\nmodel = \"lublin03\"\njobs = 400\nnodes = 64\n\
         seeds = \"1..=4\"\n[schedulers]\nfcfs = { kind = \"fcfs\" }\neasy = { kind = \"easy\" }\n",
    )
    .unwrap();
    let html = run_report(dir.path(), &spec);
    let doc = parse(&html);
    let ids = figure_ids(&doc);
    assert_eq!(
        ids,
        [
            "figure-seeds-bounded_slowdown_mean",
            "figure-seeds-wait_mean_s"
        ]
    );
    let svg = figure(&doc, "seeds-wait_mean_s");
    let dots = svg
        .descendants()
        .filter(|n| n.tag_name().name() == "circle")
        .count();
    assert_eq!(dots, 8);
    let t = texts(&svg);
    assert!(t.contains_key("fcfs") && t.contains_key("easy") && !t.contains_key("unshaken"));
}

/// Groups: a study that varies the scheduler directly, in a spec that also has
/// experiments, gets a figure per scheduler (runs without an experiment are grouped by
/// the axes an experiment would set); a study by experiment gets one per experiment;
/// a figure without a study never mixes the runs of two studies.
#[test]
fn figures_group_by_study_experiment_and_the_axes_it_sets() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("groups.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"groups\"\n[workloads.KTH]\ntrace = {:?}\n[schedulers]\n\
             fcfs = {{ kind = \"fcfs\" }}\neasy = {{ kind = \"easy\" }}\n[replays]\n\
             rigid = \"rigid\"\na60 = \"a60\"\n[experiments]\nE = {{ scheduler = \"easy\" }}\n\
             [[study]]\nname = \"plain\"\nvary = [\"scheduler\", \"replay\"]\n\
             scheduler = [\"fcfs\", \"easy\"]\n\
             replay = [\"rigid\", \"a60\"]\n\
             [[study]]\nname = \"exp\"\nexperiment = \"E\"\nreplay = [\"rigid\", \"a60\"]\n\
             [[figure]]\nkind = \"timeline\"\n",
            trace_path("KTH-SP2-1996-2.1-cln").display().to_string()
        ),
    )
    .unwrap();
    let html = run_report(dir.path(), &spec);
    let doc = parse(&html);
    assert_eq!(
        figure_ids(&doc),
        [
            "figure-timeline-plain-fcfs",
            "figure-timeline-plain-easy",
            "figure-timeline-exp-e"
        ]
    );
    for id in [
        "timeline-plain-fcfs",
        "timeline-plain-easy",
        "timeline-exp-e",
    ] {
        // Three panels, one legend.
        let t = texts(&figure(&doc, id));
        assert_eq!((t["rigid"], t["a60"]), (1, 1), "{id}");
    }
}

/// Regression (issue 41): a stochastic replay model (fluid draws its delays) repeated
/// over the seeds of a shake variant that perturbs nothing (`reps = { seeds = "1..=5" }`)
/// was reported as shaken: a seed-0 run was added as the "baseline" in runs.csv and
/// drawn as a red "unshaken" line beside the box of seeds 1–5, although nothing was
/// shaken. Each of the 5 seeds is one draw of the model: 5 runs, each a `replication`,
/// drawn as 5 dots of one distribution and no unshaken mark.
#[test]
fn replications_of_a_stochastic_replay_model_are_not_shakes() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("fluid.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"fluid\"\n[workloads.fixture]\ntrace = {:?}\n\
             [schedulers]\nfcfs = {{ kind = \"fcfs\" }}\n[replays]\nfluid = \"fluid\"\n\
             [shakes]\nreps = {{ seeds = \"1..=5\" }}\n",
            crate::common::fixture("zakay_batches.swf.txt")
                .display()
                .to_string()
        ),
    )
    .unwrap();
    let html = run_report(dir.path(), &spec);
    let (header, rows) = read_csv(&dir.path().join("out/runs.csv"));
    let (seed, role) = (column(&header, "seed"), column(&header, "role"));
    let seeds: Vec<&str> = rows.iter().map(|r| r[seed].as_str()).collect();
    assert_eq!(seeds, ["1", "2", "3", "4", "5"]);
    assert!(rows.iter().all(|r| r[role] == "replication"), "{rows:?}");
    let doc = parse(&html);
    let mut drew_seeds = 0;
    for f in doc.descendants().filter(|n| n.has_tag_name("figure")) {
        let id = f.attribute("id").unwrap();
        let svg = f
            .descendants()
            .find(|n| n.tag_name().name() == "svg")
            .unwrap();
        let t = texts(&svg);
        assert!(
            !t.keys().any(|k| k.contains("unshaken")),
            "{id}: {:?}",
            t.keys()
        );
        if id.starts_with("figure-seeds-") {
            drew_seeds += 1;
            let dots = svg
                .descendants()
                .filter(|n| n.tag_name().name() == "circle")
                .count();
            assert_eq!(dots, 5, "{id}");
        }
    }
    // One figure per default metric (bounded_slowdown_mean, wait_mean_s).
    assert_eq!(drew_seeds, 2);
}

/// The summary at the top of report.html says how the runs ended and lists the failed
/// ones with their errors: here the 2 runs (fcfs, easy) of a workload whose trace does
/// not exist fail, the 2 of the fixture do not.
#[test]
fn the_report_opens_with_the_runs_and_their_failures() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("fails.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"fails\"\n[workloads.fixture]\ntrace = {:?}\n\
             [workloads.gone]\ntrace = \"no-such-trace.swf\"\n\
             [schedulers]\nfcfs = {{ kind = \"fcfs\" }}\neasy = {{ kind = \"easy\" }}\n",
            crate::common::fixture("zakay_batches.swf.txt")
                .display()
                .to_string()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    spec_command("run", &spec, &dir.path().join("cache"), &out)
        .assert()
        .code(1);
    let html = std::fs::read_to_string(out.join("partial/report.html")).unwrap();
    let doc = parse(&html);
    let summary = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("summary"))
        .unwrap();
    let text = text_of(&summary);
    assert!(text.contains("4 runs (2 ok, 2 failed)"), "{text}");
    assert!(text.contains("Failed runs (2):"), "{text}");
    let failures: Vec<String> = summary
        .descendants()
        .filter(|n| n.has_tag_name("li"))
        .map(|n| text_of(&n))
        .filter(|t| t.contains("no-such-trace"))
        .collect();
    assert_eq!(failures.len(), 2, "{text}");
    assert!(
        failures[0].starts_with("workload gone, scheduler fcfs: "),
        "{failures:?}"
    );
    assert!(
        failures[1].starts_with("workload gone, scheduler easy: "),
        "{failures:?}"
    );
    // The summary comes before anything else of the page's body but its heading.
    let first_h2 = doc.descendants().find(|n| n.has_tag_name("h2")).unwrap();
    assert_eq!(text_of(&first_h2), "Summary");
}

/// A study comparing experiments: the default comparison has a category per
/// experiment, named as the spec names it, not per scheduler it sets; with replay
/// models varied too, each category holds a dot per replay model, side by side in
/// its colour, the legend naming them: 2 experiments × 2 replay models = 4 dots, and
/// the legend's 2.
#[test]
fn experiments_are_compared_by_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("exp.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"exp\"\n[workloads.fixture]\ntrace = {:?}\n\
             [schedulers]\nfcfs = {{ kind = \"fcfs\" }}\neasy = {{ kind = \"easy\" }}\n\
             [replays]\nrigid = \"rigid\"\na0 = \"a0\"\n\
             [experiments]\n\"first come\" = {{ scheduler = \"fcfs\" }}\n\
             backfilled = {{ scheduler = \"easy\" }}\n\
             [[study]]\nname = \"e\"\nexperiment = [\"first come\", \"backfilled\"]\n\
             replay = [\"rigid\", \"a0\"]\n",
            crate::common::fixture("zakay_batches.swf.txt")
                .display()
                .to_string()
        ),
    )
    .unwrap();
    let html = run_report(dir.path(), &spec);
    let doc = parse(&html);
    let svg = figure(&doc, "seeds-wait_mean_s");
    let t = texts(&svg);
    assert_eq!((t["first come"], t["backfilled"]), (1, 1), "{t:?}");
    assert_eq!((t["rigid"], t["a0"]), (1, 1), "{t:?}");
    assert!(!t.contains_key("fcfs") && !t.contains_key("easy"), "{t:?}");
    assert_eq!(circles(&svg), 4 + 2);
    // Two colours, each on 2 dots and its legend entry.
    let mut fills: BTreeMap<&str, usize> = BTreeMap::new();
    for c in svg
        .descendants()
        .filter(|n| n.tag_name().name() == "circle")
    {
        *fills.entry(c.attribute("fill").unwrap()).or_default() += 1;
    }
    assert_eq!(
        fills.values().copied().collect::<Vec<_>>(),
        [3, 3],
        "{fills:?}"
    );
    assert!(text_of(&svg).starts_with("Mean wait (s) by experiment / replay: study e"));
}

/// Issue 53: a sweep whose values span factors (FCFS against EASY on KTH-SP2 at loads
/// 0.6 and 0.8, mean waits from hours to weeks) gets a logarithmic y axis by itself,
/// its ticks powers of ten; `log_y = false` keeps it linear (evenly spaced ticks).
#[test]
fn sweeps_spanning_decades_get_a_log_axis_unless_told() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("log.toml");
    std::fs::write(
        &spec,
        format!(
            r#"name = "log"
[workloads.KTH]
trace = "{}"
[transforms]
load = {{ load = "0.6..=0.8 step 0.2" }}
[schedulers]
fcfs = {{ kind = "fcfs" }}
easy = {{ kind = "easy" }}
[[figure]]
kind = "sweep"
x = "transform"
series = ["scheduler"]
metrics = ["wait_mean_s"]
title = "auto"
[[figure]]
kind = "sweep"
x = "transform"
series = ["scheduler"]
metrics = ["wait_mean_s"]
log_y = false
title = "linear"
"#,
            crate::common::trace_path("KTH-SP2-1996-2.1-cln").display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    crate::common::spec_command("run", &spec, &dir.path().join("cache"), &out)
        .assert()
        .success();
    // The y ticks: the labels left of the plot (their text anchored at the end).
    let y_ticks = |title: &str| -> Vec<String> {
        for e in std::fs::read_dir(out.join("figures")).unwrap().flatten() {
            let svg = std::fs::read_to_string(e.path()).unwrap();
            let doc = roxmltree::Document::parse(&svg).unwrap();
            let texts: Vec<roxmltree::Node<'_, '_>> = doc
                .descendants()
                .filter(|n| n.has_tag_name("text"))
                .collect();
            if texts.iter().any(|t| t.text().map(str::trim) == Some(title)) {
                return texts
                    .iter()
                    .filter(|t| t.attribute("text-anchor") == Some("end"))
                    .filter_map(|t| t.text().map(|s| s.trim().to_string()))
                    .filter(|s| !s.is_empty())
                    .collect();
            }
        }
        panic!("no figure titled {title}");
    };
    let power = |label: &str| -> Option<i32> {
        let exponent: String = label
            .strip_prefix("10")?
            .chars()
            .map(|c| match c {
                '⁰' => Some('0'),
                '¹' => Some('1'),
                '²' => Some('2'),
                '³' => Some('3'),
                '⁴' => Some('4'),
                '⁵' => Some('5'),
                '⁶' => Some('6'),
                '⁷' => Some('7'),
                '⁸' => Some('8'),
                '⁹' => Some('9'),
                '⁻' => Some('-'),
                _ => None,
            })
            .collect::<Option<String>>()?;
        exponent.parse().ok()
    };
    let auto = y_ticks("auto");
    let powers: Vec<i32> = auto.iter().filter_map(|l| power(l)).collect();
    assert_eq!(powers.len(), auto.len(), "not powers of ten: {auto:?}");
    assert!(powers.len() >= 2, "{auto:?}");
    assert!(powers.windows(2).all(|w| w[1] == w[0] + 1), "{auto:?}");
    let linear: Vec<f64> = y_ticks("linear")
        .iter()
        .map(|l| l.parse::<f64>().unwrap())
        .collect();
    assert!(linear.len() >= 3, "{linear:?}");
    let step = linear[1] - linear[0];
    assert!(
        linear
            .windows(2)
            .all(|w| ((w[1] - w[0]) - step).abs() < 1e-9 * step.abs()),
        "{linear:?}"
    );
}

/// Issue 53: paper2024's summary was a wall of ~84 figure links. Past 12, the links of
/// the figures (other than comparisons) fold into a `<details>` that says how many;
/// every figure is still linked, and its target exists.
#[test]
fn many_figure_links_fold_away() {
    let dir = tempfile::tempdir().unwrap();
    let figures: String = ["timeline", "queue-length", "occupancy", "wait"]
        .iter()
        .map(|k| format!("[[figure]]\nkind = \"{k}\"\nseries = [\"scheduler\"]\n"))
        .collect();
    let spec = write_spec(dir.path(), &figures);
    let out = dir.path().join("out");
    spec_command("run", &spec, &dir.path().join("cache"), &out)
        .assert()
        .success();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let doc = parse(&html);
    let ids: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("figure"))
        .filter_map(|n| n.attribute("id"))
        .collect();
    assert!(ids.len() > 12, "{} figures", ids.len());
    let nav = doc.descendants().find(|n| n.has_tag_name("nav")).unwrap();
    let details = nav
        .descendants()
        .find(|n| n.has_tag_name("details"))
        .expect("the links fold away");
    let summary = details
        .descendants()
        .find(|n| n.has_tag_name("summary"))
        .and_then(|n| n.text())
        .unwrap();
    let folded = details
        .descendants()
        .filter(|n| n.has_tag_name("a"))
        .count();
    assert_eq!(summary, format!("{folded} more figures"));
    let linked: Vec<&str> = nav
        .descendants()
        .filter(|n| n.has_tag_name("a"))
        .filter_map(|n| n.attribute("href")?.strip_prefix("#figure-"))
        .collect();
    for id in &ids {
        let name = id.strip_prefix("figure-").unwrap();
        assert!(linked.contains(&name), "{id} not linked");
    }
}
