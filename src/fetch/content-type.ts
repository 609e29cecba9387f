export interface ContentType {
  /** The media type without parameters, lower case; '' when the header is missing. */
  readonly mime: string;
  /** The charset parameter, lower case, when the header has one. */
  readonly charset?: string;
}

/** Parses a Content-Type header leniently: servers send every variant of spacing and quoting. */
export function parseContentType(header: string | undefined): ContentType {
  if (!header) return { mime: '' };
  const [type = '', ...params] = header.split(';');
  const mime = type.trim().toLowerCase();
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').trim().toLowerCase();
    if (charset) return { mime, charset };
  }
  return { mime };
}
