/** pdf.js's worker module, which pdfjs-dist ships without types: it is imported for its side effect only (load-pdf.ts). */
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs';
