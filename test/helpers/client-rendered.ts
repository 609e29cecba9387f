/** Pages that need a browser, for the rendering tests and benchmark. */

/** A create-react-app style shell: nothing to read until the script at `scriptPath` has run. */
export function appShell(title: string, scriptPath: string): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title><script defer src="${scriptPath}"></script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>`;
}

/**
 * A script that fetches an article as JSON (`{ title, paragraphs }`) from the URL the JavaScript
 * expression `url` gives, and writes it into the shell's #root.
 */
export function storyScript(url: string): string {
  return `fetch(${url}).then((r) => r.json()).then((story) => {
  const article = document.createElement('article');
  const title = document.createElement('h1');
  title.textContent = story.title;
  article.append(title);
  for (const text of story.paragraphs) {
    const p = document.createElement('p');
    p.textContent = text;
    article.append(p);
  }
  document.getElementById('root').append(article);
});`;
}
