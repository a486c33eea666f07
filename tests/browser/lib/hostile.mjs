// The hostile text of the browser tests: what a model (or a dataset, or an experiment file)
// could put in front of a page that shows it. Each piece that could run script sets
// window.__pwned to its own number, so a test names the piece that fired; the pieces that
// could make a request point at example.invalid, which the page recorder (browser.mjs) flags.
// A page that shows these strings must show them as text: nothing here may become an element.

export const hostileSnippets = [
  '<script>window.__pwned=1</script>',
  '<img src=x onerror="window.__pwned=2">',
  '[click](javascript:window.__pwned=3) <a href="javascript:window.__pwned=3">x</a>',
  "{{constructor.constructor('window.__pwned=4')()}}",
  '"></table></td>\'><script>window.__pwned=5</script>',
  '<svg onload="window.__pwned=6"><circle r=9></svg>',
  '<iframe srcdoc="<script>parent.__pwned=8</script>"></iframe>',
  '<link rel=stylesheet href="https://example.invalid/steal.css"><img src="http://example.invalid/pixel.png">',
  '${window.__pwned=10}',
  '<details open ontoggle="window.__pwned=11"><summary>s</summary></details>',
  '<style>body{display:none}</style>',
  // Last: it opens a comment that would swallow the snippets after it.
  '</script><script>window.__pwned=7</script><!--',
];

// Reasoning made of every snippet, one a line, in front of the answer lines. No snippet holds
// an answer statement, a quote marker or a hedge (docs/formats.md, "How replies are read"), so
// the reply still parses as the answer lines say.
export function hostileReasoning() {
  return ['Let me think step by step about this. **Markdown** _too_.', ...hostileSnippets].join('\n');
}

// A protocol label the comparison table must show as it is written.
// (Not on `single`: the report's decision breakdown and harmed units are against `single`.)
export const hostileLabel = '<img src=x onerror="window.__pwned=20">self-consistency';

// The API key the hostile experiment's server expects (environment variable below): it must
// appear in no file parley writes and no page it serves.
export const apiKeyEnv = 'PARLEY_BROWSER_TEST_API_KEY';
export const apiKeySecret = 'sk-parley-browser-secret-7f3a9c1e5b';

// What hostile markup made it into the page's DOM as markup, one line per element found
// (empty when none did): an element with an on* attribute (a page under a strict CSP has none
// of its own), an image, frame, object or <base>, a URL attribute that is javascript: or
// points at example.invalid or holds a snippet (except, percent-encoded, in a link within the
// page: `#/debate?task=%3Cimg…` is data), a script or style holding a snippet's text. Text placed in an
// ordinary attribute (title, data-*) is data and is not flagged.
export async function injectedMarkup(page) {
  return page.evaluate(() => {
    const found = [];
    const describe = (element) => element.outerHTML.slice(0, 120);
    const urlAttributes = ['href', 'src', 'srcdoc', 'action', 'formaction', 'data', 'xlink:href', 'poster'];
    for (const element of document.querySelectorAll('*')) {
      for (const attribute of element.attributes) {
        const name = attribute.name.toLowerCase();
        if (name.startsWith('on')) found.push(`on* attribute: ${describe(element)}`);
        // A link within the page (`#/…`) may carry hostile text as encoded data (the viewer's
        // links to a debate whose task id is hostile): flagged only if a character is left raw.
        const encodedHashLink = /^#\/[^<>"'\s]*$/.test(attribute.value);
        if (urlAttributes.includes(name) &&
            (/^\s*javascript:|example\.invalid/i.test(attribute.value) ||
             (/__pwned/.test(attribute.value) && !encodedHashLink)))
          found.push(`hostile URL attribute: ${describe(element)}`);
      }
    }
    for (const element of document.querySelectorAll('img, iframe, frame, object, embed, base'))
      found.push(`element: ${describe(element)}`);
    for (const element of document.querySelectorAll('script, style')) {
      if (element.type !== 'application/json' && /__pwned|display:\s*none\}/.test(element.textContent))
        found.push(`${element.localName} with hostile text: ${describe(element)}`);
    }
    return found;
  });
}
