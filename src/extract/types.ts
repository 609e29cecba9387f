import type { OutputFormat } from '../../workers/pool/clean-html.js';

/** Body of POST /v1/extract after validation against schemas/extract.request.json (defaults applied). */
export interface ExtractRequest {
  url: string;
  format: OutputFormat;
  include_metadata: boolean;
  extract_images: boolean;
  extract_links: boolean;
  clean_html: boolean;
  options: { timeout: number; preserve_formatting: boolean; min_content_length: number; respect_robots?: boolean; max_age: number };
}

/** Section 2.2 of the interface specification, plus the URLs involved and optional links. */
export interface ExtractResult {
  url: string;
  final_url: string;
  content: string;
  metadata?: {
    title: string | null;
    author: string | null;
    published_date: string | null;
    word_count: number;
    reading_time: string;
    language: string | null;
  };
  images?: Array<{ url: string; alt: string; caption: string }>;
  links?: Array<{ url: string; text: string }>;
  quality_score: number;
}
