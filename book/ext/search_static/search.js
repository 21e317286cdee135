// The book's search (see book/ext/search.py). Sphinx inlines this file into language_data.js
// (it is the `html_search_scorer`), which the pages load right after searchtools.js: `Search`,
// `Stemmer` and `splitQuery` exist here, and the search has not run yet.
//
// * Ranking: `Scorer.score` ranks a page by where the query's words stand: in its title, in its
//   headings, or only in its text. Headings that every chapter has ("Learning objectives") do
//   not count, and a section is listed just below its page.
// * Chinese queries: a run of Han characters that the index does not hold as one word
//   ("长度泛化") is split into the index's words ("长度", "泛化") instead of finding nothing.
// * Excerpts: `Search.makeSearchSummary` shows the sentence of the page's prose that best
//   matches the query, its math as short plain text (\(q_i^\top k_j\) as "qᵢᵀ kⱼ"), never the
//   article's header, code, outputs or display equations; failing a sentence, a heading that
//   has the query with its section's first sentence, then the line of code that has it, then
//   the page's first sentence.
var Scorer = (function () {
  "use strict";

  // Sphinx's own weights, used by searchtools.js before `score` rescores its results.
  const sphinxWeights = {
    objNameMatch: 11,
    objPartialMatch: 6,
    objPrio: { 0: 15, 1: 5, 2: -5 },
    objPrioDefault: 0,
    title: 15,
    partialTitle: 7,
    term: 5,
    partialTerm: 2,
  };
  if (typeof Search === "undefined") return sphinxWeights;

  // What a page earns for each word of the query, times the word's rarity in the book
  // (log((pages + 1) / pages holding it): "attention", on every page, weighs little beside
  // "window"); and for the whole query as written.
  const WEIGHT = {
    text: 5, // the word is in the page's text
    partialText: 2, // only a longer word containing it is
    title: 40, // the word is in the page's title
    heading: 8, // per heading holding the word (at most `headings` of them)
    headings: 4,
    phraseTitle: 30, // the query as written stands in the title ("length generalisation")
    phraseHeading: 10, // or in a heading
  };
  const BOILERPLATE = 3; // a heading found on this many pages is the book's furniture

  const HAN = /\p{Script=Han}/u;
  const WORD = /(?:(?!\p{Script=Han})[\p{L}\p{N}_])+/gu; // a word of any script but Han
  let stemmer = null;
  const stems = new Map();
  const stem = (word) => {
    if (!stems.has(word)) stems.set(word, (stemmer = stemmer || new Stemmer()).stemWord(word));
    return stems.get(word);
  };

  // Where `text` mentions the search term `term` (stemmed, lower case), and whether as a word
  // of its own: [-1, false] when it does not. A Han term is found as it is; a word matches when
  // it stems to the term (a word of its own), or when it or a part of a name ("rotary" in
  // "scaled_rotary_frequencies") holds the term's stem, as Sphinx's partial matches do.
  const locate = (text, term) => {
    const lower = text.toLowerCase();
    if (HAN.test(term)) return [lower.indexOf(term), true];
    let first = -1;
    for (const match of lower.matchAll(WORD)) {
      const word = match[0];
      if (word === term || stem(word) === term) return [match.index, true];
      if (first >= 0) continue;
      const parts = word.split("_").filter(Boolean);
      if (parts.length > 1 && parts.some((part) => stem(part) === term)) first = match.index;
      else if (term.length > 2 && (word.includes(term) || stem(word).includes(term)))
        first = match.index;
    }
    return [first, false];
  };
  const find = (text, term) => locate(text, term)[0];

  const decode = (html) => {
    const box = document.createElement("textarea");
    box.innerHTML = html
      .replace(/<span class="section-number">[^<]*<\/span>/g, "")
      .replace(/<[^>]*>/g, "");
    return box.value.trim();
  };

  const query = { text: "", terms: [], phrase: "", words: null };
  let pagesOf = null; // the index these pages were read from
  let pages = [];

  // Each page's title and headings (plain text), and its place in the table of contents.
  const readPages = (index) => {
    if (pagesOf === index) return pages;
    const onPages = new Map();
    for (const [title, places] of Object.entries(index.alltitles))
      onPages.set(title, new Set(places.map(([file]) => file)));
    const root = new URL(document.documentElement.dataset.content_root || "./", location.href);
    const order = new Map();
    document.querySelectorAll(".bd-sidebar-primary a[href]").forEach((link) => {
      const url = new URL(link.getAttribute("href"), location.href);
      if (url.origin !== root.origin || !url.pathname.startsWith(root.pathname)) return;
      const doc = decodeURI(url.pathname.slice(root.pathname.length)).replace(/\.html$/, "");
      if (!order.has(doc)) order.set(doc, order.size);
    });
    pages = index.docnames.map((docname, file) => ({
      title: decode(index.titles[file]),
      headings: [],
      order: order.has(docname) ? order.get(docname) : order.size + file,
    }));
    for (const [title, files] of onPages) {
      if (!title || files.size >= BOILERPLATE) continue;
      for (const file of files) if (title !== pages[file].title) pages[file].headings.push(title);
    }
    pagesOf = index;
    return pages;
  };

  const holds = (files, file) =>
    files !== undefined && (files === file || (Array.isArray(files) && files.includes(file)));

  // The pages holding each word of the query in their text, as a whole word or inside a longer
  // one (a word in a title is left out of the index's `terms` for that page: both count).
  const wordsOf = (index) => {
    if (query.words !== null) return query.words;
    const filesOf = (word) =>
      [index.terms[word], index.titleterms[word]].flat().filter((f) => f !== undefined);
    query.words = query.terms.map((term) => {
      const whole = new Set(filesOf(term));
      const partial = new Set();
      if (term.length > 2)
        for (const word of Object.keys(index.terms))
          if (word !== term && word.includes(term)) filesOf(word).forEach((f) => partial.add(f));
      const pages = new Set([...whole, ...partial]).size || 1;
      return { term, whole, partial, rarity: Math.log((index.docnames.length + 1) / pages) };
    });
    return query.words;
  };

  // How well a page answers the query (0 when not at all).
  const relevance = (index, file) => {
    const page = readPages(index)[file];
    let score = 0;
    for (const { term, whole, partial, rarity } of wordsOf(index)) {
      let earned = whole.has(file) ? WEIGHT.text : partial.has(file) ? WEIGHT.partialText : 0;
      if (find(page.title, term) >= 0) earned += WEIGHT.title;
      const headings = page.headings.filter((h) => find(h, term) >= 0).length;
      earned += WEIGHT.heading * Math.min(headings, WEIGHT.headings);
      score += rarity * earned;
    }
    if (query.phrase) {
      if (page.title.toLowerCase().includes(query.phrase)) score += WEIGHT.phraseTitle;
      else if (page.headings.some((h) => h.toLowerCase().includes(query.phrase)))
        score += WEIGHT.phraseHeading;
    }
    return score;
  };

  // The section title a result names ("Page > Section", or the title alone), in plain text.
  const sectionOf = (index, file, title) => {
    const page = index.titles[file];
    return decode(title.startsWith(page + " > ") ? title.slice(page.length + 3) : title);
  };

  const score = (result) => {
    const [docname, title, anchor, descr, sphinxScore] = result;
    const index = Search._index;
    const file = index ? index.docnames.indexOf(docname) : -1;
    if (descr || file < 0 || query.terms.length === 0) return sphinxScore; // objects: Sphinx's
    // Relevance in hundredths; equal ones keep the book's order (the fraction), and a section
    // comes right after its page.
    const own = Math.round(100 * relevance(index, file)) - pages[file].order / 1000;
    const section = anchor !== "" && sectionOf(index, file, title) !== pages[file].title;
    return Math.round(10000 * (section ? own - 0.0001 : own)) / 10000;
  };

  // Keep one result per page and section: the page's title found among the section titles is
  // the page itself ("3. The sinusoidal encoding > The sinusoidal encoding").
  const tidy = (results) => {
    const index = Search._index;
    const seen = new Set();
    const kept = [];
    for (const result of results.slice().reverse()) {
      const file = index.docnames.indexOf(result[0]);
      const page = file >= 0 && !result[3] ? readPages(index)[file].title : null;
      if (page !== null && sectionOf(index, file, result[1]) === page) {
        result[1] = index.titles[file];
        result[2] = "";
      }
      if (file >= 0) result[1] = plainMathIn(result[1]);
      const key = `${result[0]}${result[2]}|${result[3]}`;
      if (seen.has(key)) continue;
      seen.add(key);
      kept.push(result);
    }
    return kept.reverse();
  };

  const performSearch = Search._performSearch;
  Search._performSearch = (text, searchTerms, excludedTerms, highlightTerms, objectTerms) => {
    query.text = text;
    query.terms = [...searchTerms];
    query.words = null;
    // The query as written, where it is more than one word of the index: several words, or a
    // Chinese one split into the index's words.
    const phrase = text.toLowerCase().trim().replace(/\s+/g, " ");
    query.phrase = query.terms.length > 1 || HAN.test(phrase) ? phrase : "";
    return tidy(performSearch(text, searchTerms, excludedTerms, highlightTerms, objectTerms));
  };

  // ---------------------------------------------------------------------------------------
  // Chinese queries: split a run of Han characters the index lacks into the index's words,
  // longest first (the index holds jieba's words, of two characters or more).

  const known = (word) => {
    const index = Search._index;
    return index !== null && (word in index.terms || word in index.titleterms);
  };

  const splitHan = (run) => {
    if (known(run)) return [run];
    const words = [];
    for (let i = 0; i < run.length; ) {
      let size = Math.min(run.length - i, 8);
      while (size > 1 && !known(run.substr(i, size))) size--;
      if (size > 1) words.push(run.substr(i, size));
      i += Math.max(size, 1);
    }
    return words.length ? words : [run];
  };

  if (typeof splitQuery === "function") {
    const splitWords = splitQuery;
    splitQuery = (text) =>
      splitWords(text).flatMap((word) =>
        (word.match(/\p{Script=Han}+|(?:(?!\p{Script=Han}).)+/gu) || []).flatMap((part) =>
          HAN.test(part) ? splitHan(part) : [part]
        )
      );
  }

  // ---------------------------------------------------------------------------------------
  // Math as plain text: the TeX of an inline equation, shortened to what a reader can read
  // in a line of text (Greek letters, operators, sub- and superscripts in Unicode).

  const SYMBOLS = {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", zeta: "ζ",
    eta: "η", theta: "θ", vartheta: "ϑ", iota: "ι", kappa: "κ", lambda: "λ", mu: "μ", nu: "ν",
    xi: "ξ", pi: "π", rho: "ρ", sigma: "σ", tau: "τ", upsilon: "υ", phi: "φ", varphi: "φ",
    chi: "χ", psi: "ψ", omega: "ω", Gamma: "Γ", Delta: "Δ", Theta: "Θ", Lambda: "Λ", Xi: "Ξ",
    Pi: "Π", Sigma: "Σ", Phi: "Φ", Psi: "Ψ", Omega: "Ω",
    times: "×", cdot: "·", cdots: "⋯", ldots: "…", dots: "…", approx: "≈", le: "≤", leq: "≤",
    ge: "≥", geq: "≥", ne: "≠", neq: "≠", pm: "±", mp: "∓", to: "→", rightarrow: "→",
    leftarrow: "←", mapsto: "↦", Rightarrow: "⇒", Leftrightarrow: "⇔", iff: "⇔", in: "∈",
    notin: "∉", subset: "⊂", subseteq: "⊆", infty: "∞", sum: "Σ", prod: "Π", partial: "∂",
    nabla: "∇", lfloor: "⌊", rfloor: "⌋", lceil: "⌈", rceil: "⌉", langle: "⟨", rangle: "⟩",
    lvert: "|", rvert: "|", vert: "|", mid: "|", lVert: "‖", rVert: "‖", Vert: "‖", "|": "‖",
    sim: "~", propto: "∝", equiv: "≡", circ: "∘", odot: "⊙", otimes: "⊗", oplus: "⊕",
    top: "ᵀ", prime: "′", ell: "ℓ", forall: "∀", exists: "∃", emptyset: "∅", cap: "∩",
    cup: "∪", setminus: "∖", neg: "¬", wedge: "∧", vee: "∨", ast: "∗", star: "⋆",
    bmod: " mod ", mod: " mod ", quad: " ", qquad: " ", ",": " ", ";": " ", ":": " ",
    ">": " ", " ": " ", "!": "", "\\": "; ", "{": "{", "}": "}", "%": "%", "_": "_", "&": "&",
    "#": "#", $: "$",
  };
  const NAMED = new Set([
    "sin", "cos", "tan", "log", "ln", "exp", "max", "min", "arg", "argmax", "argmin", "det",
    "dim", "lim", "sup", "inf", "gcd", "deg",
  ]);
  const IGNORED = new Set([
    "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl",
    "biggr", "displaystyle", "textstyle", "scriptstyle", "limits", "nolimits", "nonumber",
    "notag", "label",
  ]);
  const STYLES = new Set([
    "text", "textrm", "textit", "textbf", "textsf", "texttt", "mathrm", "mathit", "mathbf",
    "mathsf", "mathtt", "mathcal", "mathfrak", "mathscr", "boldsymbol", "bm", "operatorname",
    "mbox", "hbox", "emph",
  ]);
  const ACCENTS = {
    hat: "\u0302", widehat: "\u0302", tilde: "\u0303", widetilde: "\u0303", bar: "\u0304",
    overline: "\u0305", vec: "\u20d7", dot: "\u0307", ddot: "\u0308",
  };
  const BLACKBOARD = { R: "ℝ", N: "ℕ", Z: "ℤ", Q: "ℚ", C: "ℂ", E: "𝔼", P: "ℙ" };
  const table = (from, to) => Object.fromEntries([...from].map((c, i) => [c, [...to][i]]));
  const SUPERSCRIPT = {
    ...table("0123456789+-−=()niT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱᵀ"),
    ...table("abcdefghjklmoprstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰʲᵏˡᵐᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"),
    "ᵀ": "ᵀ", "′": "′",
  };
  const SUBSCRIPT = table("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ");
  const SIMPLE = /^[^\s+−\-·×/=<>≤≥,]+$/u;

  const texToText = (tex) => {
    let i = 0;
    const spaces = () => {
      while (i < tex.length && /\s/.test(tex[i])) i++;
    };
    const group = (stop) => {
      let out = "";
      while (i < tex.length) {
        if (tex[i] === stop) {
          i++;
          break;
        }
        out += atom();
      }
      return out;
    };
    const argument = () => {
      spaces();
      return i < tex.length ? atom() : "";
    };
    const script = (sign) => {
      const body = argument().replace(/\s+/g, "");
      const map = sign === "^" ? SUPERSCRIPT : SUBSCRIPT;
      if (body && [...body].every((c) => c in map)) return [...body].map((c) => map[c]).join("");
      return sign + ([...body].length > 1 ? `(${body})` : body);
    };
    const wrap = (text) => (SIMPLE.test(text) ? text : `(${text.trim()})`);
    const command = () => {
      i++; // the backslash
      let name = tex[i++] || "";
      if (/[A-Za-z]/.test(name)) while (i < tex.length && /[A-Za-z]/.test(tex[i])) name += tex[i++];
      if (name in SYMBOLS) return SYMBOLS[name];
      if (NAMED.has(name)) {
        spaces();
        return tex[i] === "(" ? ` ${name}` : ` ${name} `; // "sin(θ/2)", "cos kωᵢ"
      }
      if (IGNORED.has(name)) {
        if (name === "label") argument();
        return "";
      }
      if (STYLES.has(name)) return argument();
      if (name === "mathbb") return [...argument()].map((c) => BLACKBOARD[c] || c).join("");
      if (name in ACCENTS) {
        const body = argument();
        return [...body].length === 1 ? body + ACCENTS[name] : body;
      }
      if (/^[tdc]?frac$/.test(name)) {
        const top = argument();
        return `${wrap(top)}/${wrap(argument())}`;
      }
      if (name === "sqrt") {
        spaces();
        if (tex[i] === "[") {
          i++;
          group("]");
        }
        return `√${wrap(argument())}`;
      }
      if (name === "begin" || name === "end") {
        argument();
        return " ";
      }
      if (name === "pmod") return ` (mod ${argument()})`;
      return name; // an unknown command: its name
    };
    const atom = () => {
      const c = tex[i];
      if (c === "\\") return command();
      i++;
      if (c === "{") return group("}");
      if (c === "^" || c === "_") return script(c);
      if (c === "~" || c === "&") return " ";
      if (c === "-") return "−";
      if (c === "'") return "′";
      return c;
    };
    const body = tex
      .trim()
      .replace(/^\\\(|\\\)$/g, "")
      .replace(/^\\\[|\\\]$/g, "")
      .replace(/^\$\$?|\$\$?$/g, "");
    tex = body;
    let out = "";
    while (i < tex.length) out += atom();
    return out
      .replace(/\s+/g, " ")
      .replace(/\s+([,.;:)\]⌋⌉⟩])/g, "$1")
      .replace(/([([⌊⌈⟨]) /g, "$1")
      .trim();
  };

  const escapeHtml = (text) =>
    text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  // A section title shown as a result's link: its inline math as plain text.
  const plainMathIn = (html) =>
    html.replace(/\\\(([\s\S]*?)\\\)/g, (_, tex) => escapeHtml(texToText(tex)));

  // ---------------------------------------------------------------------------------------
  // Excerpts: the best sentence of the page's prose.

  // What is not prose: the article's header and links, code and its output, explorers, display
  // math, equation numbers, footnote marks and notes, quiz explanations, captions' labels.
  const NOT_PROSE = [
    ".headerlink", "script", "style", "noscript", "nav", "form", "button", "img", "svg",
    ".toctree-wrapper", ".language-links", ".deck-link", ".cell_input", ".cell_output",
    ".output", ".highlight", "pre", ".posenc-explorer", "div.math", ".eqno",
    ".footnote-reference", "aside.footnote", ".footnote-list", ".footnote", ".citation",
    ".bibliography", ".pe-quiz-why", ".pe-quiz-feedback", ".pe-quiz-input", ".admonition-title",
    ".caption-number", ".prev-next-area", ".section-number",
  ].join(", ");
  const BLOCKS = "p, li, dt, dd, figcaption, caption, th, td";
  // Prose, but not the text's own: boxes, exercises, quizzes, tables and captions.
  const ASIDES = ".admonition, .exercise, .solution, .pe-quiz, table, figure";
  const HEADINGS = "h1, h2, h3, h4, h5, h6";
  // Lengths in the width of a Latin letter (a Chinese character is two).
  const LONGEST = 240; // an excerpt
  const SHORT = 60; // a sentence shorter than this takes the next one along
  const TERSE = 24; // a sentence shorter than this says little
  const WIDE =
    /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/gu;
  const width = (text) => text.length + (text.match(WIDE) || []).length;

  const sentencesOf = (text) => {
    const language = (DOCUMENTATION_OPTIONS.LANGUAGE || "en").replace("_", "-");
    if (typeof Intl !== "undefined" && Intl.Segmenter) {
      try {
        const segmenter = new Intl.Segmenter(language, { granularity: "sentence" });
        return [...segmenter.segment(text)].map((s) => s.segment.trim()).filter(Boolean);
      } catch (error) {
        // an unknown language: split by hand
      }
    }
    return text
      .split(/(?<=[.!?])\s+(?=[A-Z0-9(“"])|(?<=[。！？；])/u)
      .map((s) => s.trim())
      .filter(Boolean);
  };

  // A block whose every word is a link's.
  const linksOnly = (block) => {
    const walker = block.ownerDocument.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode())
      if (node.textContent.trim() && !node.parentElement.closest("a")) return false;
    return true;
  };

  // Two sentences in a row: Chinese ones with no space between.
  const join = (first, second) =>
    /[。！？；]$/u.test(first) ? first + second : `${first} ${second}`;

  // The text of an element, its inline math as plain text, on one line.
  const textOf = (element) => {
    const copy = element.cloneNode(true);
    copy.querySelectorAll(".math").forEach((math) => math.replaceWith(texToText(math.textContent)));
    return copy.textContent
      .replace(/\s+/g, " ")
      // the space left before a footnote mark that is gone
      .replace(/ ([.,;:!?)\]。，；：！？）、])/gu, "$1")
      .trim();
  };

  // The stretch of `sentence` shown: all of it, or LONGEST characters around its match.
  const cut = (sentence, at) => {
    if (width(sentence) <= LONGEST) return sentence;
    const longest = Math.floor((LONGEST * sentence.length) / width(sentence)); // in characters
    let start = Math.max(0, Math.min(at - Math.floor(longest / 3), sentence.length - longest));
    if (start > 0) {
      const space = sentence.indexOf(" ", start);
      if (space >= 0 && space < at) start = space + 1;
    }
    let end = Math.min(sentence.length, start + longest);
    if (end < sentence.length) {
      const space = sentence.lastIndexOf(" ", end);
      if (space > at) end = space;
    }
    const before = start > 0 ? "… " : "";
    const after = end < sentence.length ? " …" : "";
    return before + sentence.slice(start, end).trim() + after;
  };

  // The best sentence of the blocks under `scope`: the query as written, then the most of its
  // words, then the text's own prose before asides, then a sentence long enough to read,
  // then the first in the page.
  const bestSentence = (scope, terms) => {
    let best = null;
    for (const block of scope.querySelectorAll(BLOCKS)) {
      if (block.querySelector(BLOCKS)) continue; // its inner blocks are read instead
      if (linksOnly(block)) continue; // a list of links: the chapters, the decks, the handouts
      const sentences = sentencesOf(textOf(block));
      const aside = block.closest(ASIDES) ? 0 : 1;
      sentences.forEach((sentence, n) => {
        const found = terms.map((term) => locate(sentence, term)).filter(([at]) => at >= 0);
        if (found.length === 0) return;
        const places = found.map(([at]) => at);
        const words = found.filter(([, exact]) => exact).length;
        const phrase = query.phrase ? sentence.toLowerCase().indexOf(query.phrase) : -1;
        const value =
          (phrase >= 0 ? 100 : 0) +
          10 * places.length +
          4 * words +
          2 * aside +
          (width(sentence) >= TERSE ? 1 : 0) +
          (width(sentence) >= SHORT ? 1 : 0);
        if (best !== null && value <= best.value) return;
        let text = sentence;
        if (width(text) < SHORT && n + 1 < sentences.length) text = join(text, sentences[n + 1]);
        best = { value, text, at: phrase >= 0 ? phrase : Math.min(...places) };
      });
    }
    return best && cut(best.text, best.at);
  };

  // A heading that has the query, with the first sentence of its section: "Summary: …".
  const headingOf = (scope, terms) => {
    for (const heading of scope.querySelectorAll(HEADINGS)) {
      const text = textOf(heading);
      if (!terms.some((term) => find(text, term) >= 0)) continue;
      const section = heading.closest("section");
      const first = section && firstSentence(section);
      if (!first) return text;
      return cut(`${text}${HAN.test(text.slice(-1)) ? "：" : ": "}${first}`, 0);
    }
    return null;
  };

  const firstSentence = (scope) => {
    for (const paragraph of scope.querySelectorAll("p")) {
      if (paragraph.closest(ASIDES)) continue;
      const sentences = sentencesOf(textOf(paragraph));
      if (sentences.length && width(sentences.join(" ")) >= SHORT) {
        let text = sentences[0];
        if (width(text) < SHORT && sentences.length > 1) text = join(text, sentences[1]);
        return cut(text, 0);
      }
    }
    return null;
  };

  // A page that has the query only in its code: the line of code that has it (an import last).
  const codeLine = (listings, terms) => {
    const lines = listings
      .flatMap((pre) => pre.textContent.split("\n"))
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("# NBVAL"));
    const found = lines.filter((line) => terms.some((term) => find(line, term) >= 0));
    const line = found.find((l) => !/^(from|import) /.test(l)) || found[0];
    return line ? cut(line, 0) : null;
  };

  Search.makeSearchSummary = (htmlText, keywords, anchor) => {
    const page = new DOMParser().parseFromString(htmlText, "text/html");
    const main =
      page.querySelector("article.bd-article") || page.querySelector('[role="main"]') || page.body;
    const listings = [...main.querySelectorAll(".cell_input pre, pre")]; // for codeLine
    main.querySelectorAll(NOT_PROSE).forEach((element) => element.remove());
    const terms = [...keywords].map((k) => k.toLowerCase());
    let scope = main;
    if (anchor) {
      const target = main.querySelector(`[id="${CSS.escape(anchor.replace(/^#/, ""))}"]`);
      if (target) scope = target.closest("section") || target;
    }
    // A section's own prose or heading first (its heading has the query), then the page's.
    const text =
      bestSentence(scope, terms) ||
      headingOf(scope, terms) ||
      (scope !== main && (bestSentence(main, terms) || headingOf(main, terms)));
    const code = text ? null : codeLine(listings, terms);
    const first = text || code ? null : firstSentence(main);
    if (!text && !code && !first) return document.createComment("no excerpt");
    const summary = document.createElement("p");
    summary.classList.add("context");
    if (code) summary.appendChild(document.createElement("code")).textContent = code;
    else summary.textContent = text || first;
    return summary;
  };

  Search.texToText = texToText; // for the book's tests
  return { ...sphinxWeights, score };
})();
