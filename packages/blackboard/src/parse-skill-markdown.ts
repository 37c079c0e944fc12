import { LineCounter, parseDocument, isMap, isScalar, isSeq, type Document } from 'yaml';
import { SkillFormatError } from './errors/skill-format-error.js';
import {
  DEFAULT_ROLE_TAGS_PREFIX,
  DEFAULT_USER_ONLY_TAGS,
  type ContextIsolation,
  type ContextSegment,
  type SegmentOverride,
  type SkillVariant,
  type WorkerSkill,
} from './worker-skill.js';

export interface ParseSkillMarkdownOptions {
  /** The SKILL.md text. */
  readonly text: string;
  /** Path named in errors. */
  readonly file: string;
  /** The folder name; the frontmatter `name`, when present, must equal it. */
  readonly name?: string;
}

type Path = readonly (string | number)[];

/**
 * Reads a SKILL.md: YAML frontmatter between `---` lines, then the body.
 * Checks types only, each error naming the file and line; the design
 * checklist is `validateSkill()`.
 */
export function parseSkillMarkdown(options: ParseSkillMarkdownOptions): WorkerSkill {
  const { file } = options;
  const text = options.text.replace(/^\uFEFF/, '').replaceAll('\r\n', '\n');
  const lines = text.split('\n');
  if (lines[0] !== '---') throw new SkillFormatError({ file, line: 1, message: 'must start with a "---" line opening the YAML frontmatter' });
  const closing = lines.indexOf('---', 1);
  if (closing === -1) throw new SkillFormatError({ file, line: lines.length, message: 'the YAML frontmatter is never closed by a "---" line' });
  // The frontmatter's first line is line 2 of the file.
  const firstLine = 2;
  const lineCounter = new LineCounter();
  const document = parseDocument(lines.slice(1, closing).join('\n'), { lineCounter, prettyErrors: false });
  const yamlError = document.errors[0];
  if (yamlError !== undefined) {
    // The line where the parser found the fault (an unclosed flow is found on the line after it).
    const line = lineCounter.linePos(yamlError.pos[0]).line + firstLine - 1;
    throw new SkillFormatError({ file, line, message: `malformed YAML frontmatter: ${yamlError.message.split('\n')[0]}`, cause: yamlError });
  }
  const reader = new FrontmatterReader({ file, document, lineCounter, firstLine });
  const root = document.toJS() as unknown;
  if (!isPlainObject(root)) throw new SkillFormatError({ file, line: firstLine, message: 'the frontmatter must be a YAML mapping' });

  const declaredName = reader.optionalString(['name']);
  const name = options.name ?? declaredName;
  if (name === undefined || name.length === 0) throw reader.error(['name'], 'needs a `name` (or a folder name)');
  if (options.name !== undefined && declaredName !== undefined && declaredName !== options.name) {
    throw reader.error(['name'], `name "${declaredName}" differs from its folder "${options.name}"`);
  }
  const description = reader.optionalString(['description']);
  const inputTags = reader.stringList(['inputTags'], { required: true }) ?? [];
  const outputTags = reader.stringList(['outputTags']) ?? [];
  const finalTags = reader.stringList(['finalTags']) ?? outputTags;
  const contextSegments = root['contextSegments'] === undefined ? undefined : reader.segments(['contextSegments']);
  const contextIsolation = reader.isolation();
  const variants = reader.variants(['variants']);
  const body = lines.slice(closing + 1).join('\n').trim();
  return {
    name,
    ...(description === undefined ? {} : { description }),
    file,
    inputTags,
    outputTags,
    finalTags,
    ...(contextSegments === undefined ? {} : { contextSegments }),
    contextIsolation,
    variants,
    body,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function formatPath(path: Path): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

class FrontmatterReader {
  readonly #file: string;
  readonly #document: Document;
  readonly #lineCounter: LineCounter;
  readonly #firstLine: number;

  constructor(options: { file: string; document: Document; lineCounter: LineCounter; firstLine: number }) {
    this.#file = options.file;
    this.#document = options.document;
    this.#lineCounter = options.lineCounter;
    this.#firstLine = options.firstLine;
  }

  /** File line of the node at `path`, or of its nearest existing parent. */
  lineOf(path: Path): number {
    for (let length = path.length; length >= 0; length -= 1) {
      const node = this.#document.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
      if (node?.range !== undefined) return this.#lineCounter.linePos(node.range[0]).line + this.#firstLine - 1;
    }
    return this.#firstLine;
  }

  error(path: Path, message: string): SkillFormatError {
    const field = formatPath(path);
    return new SkillFormatError({ file: this.#file, line: this.lineOf(path), field, message: `${field} ${message}` });
  }

  /** The plain value at `path`; undefined when absent or null. */
  value(path: Path): unknown {
    const node = this.#document.getIn(path, true) as unknown;
    if (node === undefined || node === null) return undefined;
    const value = isScalar(node) ? node.value : isMap(node) || isSeq(node) ? node.toJSON() : node;
    return value === null ? undefined : value;
  }

  optionalString(path: Path): string | undefined {
    const value = this.value(path);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.error(path, 'must be a string');
    return value;
  }

  stringList(path: Path, options: { required?: boolean } = {}): string[] | undefined {
    const value = this.value(path);
    if (value === undefined || value === null) {
      if (options.required === true) throw this.error(path, 'is required: a list of tag patterns');
      return undefined;
    }
    if (!Array.isArray(value)) throw this.error(path, 'must be a list of strings');
    return value.map((item, index) => {
      if (typeof item !== 'string') throw this.error([...path, index], 'must be a string');
      return item;
    });
  }

  mapping(path: Path): Record<string, unknown> | undefined {
    const value = this.value(path);
    if (value === undefined || value === null) return undefined;
    if (!isPlainObject(value)) throw this.error(path, 'must be a mapping');
    return value;
  }

  segments(path: Path): ContextSegment[] {
    const value = this.value(path);
    if (!Array.isArray(value)) throw this.error(path, 'must be a list of segments');
    return value.map((_, index) => {
      const overrides = this.segmentFields([...path, index]);
      if (overrides.tier === undefined) throw this.error([...path, index, 'tier'], 'is required: static or dynamic');
      if (overrides.tags === undefined) throw this.error([...path, index, 'tags'], 'is required: a list of tag patterns');
      return overrides as ContextSegment;
    });
  }

  segmentFields(path: Path): SegmentOverride {
    if (this.mapping(path) === undefined) throw this.error(path, 'must be a mapping with id, tier and tags');
    const id = this.optionalString([...path, 'id']);
    if (id === undefined || id.length === 0) throw this.error([...path, 'id'], 'is required: a non-empty segment id');
    const tier = this.optionalString([...path, 'tier']);
    if (tier !== undefined && tier !== 'static' && tier !== 'dynamic') throw this.error([...path, 'tier'], `must be static or dynamic, not "${tier}"`);
    const tags = this.stringList([...path, 'tags']);
    const label = this.optionalString([...path, 'label']);
    const policy = this.optionalString([...path, 'policy']);
    return {
      id,
      ...(tier === undefined ? {} : { tier }),
      ...(tags === undefined ? {} : { tags }),
      ...(label === undefined ? {} : { label }),
      ...(policy === undefined ? {} : { policy }),
    };
  }

  isolation(): ContextIsolation {
    const mode = this.optionalString(['contextIsolation']) ?? 'none';
    switch (mode) {
      case 'none':
        return { mode };
      case 'role_pov':
        return {
          mode,
          roleTagsPrefix: this.optionalString(['roleTagsPrefix']) ?? DEFAULT_ROLE_TAGS_PREFIX,
          userOnlyTags: this.stringList(['userOnlyTags']) ?? [...DEFAULT_USER_ONLY_TAGS],
        };
      case 'blind_review':
        return { mode, hiddenTags: this.stringList(['hiddenTags']) ?? [] };
      default:
        throw this.error(['contextIsolation'], `must be none, role_pov or blind_review, not "${mode}"`);
    }
  }

  variants(path: Path): Record<string, SkillVariant> {
    const value = this.mapping(path);
    if (value === undefined) return {};
    const variants: Record<string, SkillVariant> = {};
    for (const name of Object.keys(value).sort()) {
      const variantPath = [...path, name];
      if (this.mapping(variantPath) === undefined) throw this.error(variantPath, 'must be a mapping (segments, policies, omitSegments)');
      const segmentsValue = this.value([...variantPath, 'segments']);
      if (segmentsValue !== undefined && !Array.isArray(segmentsValue)) throw this.error([...variantPath, 'segments'], 'must be a list of segment overrides');
      const segments = segmentsValue?.map((_, index) => this.segmentFields([...variantPath, 'segments', index]));
      const policiesValue = this.mapping([...variantPath, 'policies']);
      let policies: Record<string, string> | undefined;
      if (policiesValue !== undefined) {
        policies = {};
        for (const [segmentId, policy] of Object.entries(policiesValue)) {
          if (typeof policy !== 'string') throw this.error([...variantPath, 'policies', segmentId], 'must be a policy name');
          policies[segmentId] = policy;
        }
      }
      const omitSegments = this.stringList([...variantPath, 'omitSegments']);
      variants[name] = {
        ...(segments === undefined ? {} : { segments }),
        ...(policies === undefined ? {} : { policies }),
        ...(omitSegments === undefined ? {} : { omitSegments }),
      };
    }
    return variants;
  }
}
