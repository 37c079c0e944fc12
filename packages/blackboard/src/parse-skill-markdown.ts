import { FrontMatterError, readFrontMatter, type FrontMatter } from '@strata/context';
import { isMap, isScalar, isSeq, type Document } from 'yaml';
import { WorkerSkillFormatError } from './errors/worker-skill-format-error.js';
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

/** The frontmatter's first line is line 2 of the file. */
const FIRST_LINE = 2;

/** The fence rules live in `readFrontMatter`; the messages are this reader's own. */
function formatErrorOf(error: FrontMatterError): WorkerSkillFormatError {
  const messages: { readonly [code in FrontMatterError['code']]: string } = {
    FRONT_MATTER_MISSING: 'must start with a "---" line opening the YAML frontmatter',
    FRONT_MATTER_UNTERMINATED: 'the YAML frontmatter is never closed by a "---" line',
    FRONT_MATTER_INVALID_YAML: `malformed YAML frontmatter: ${error.parserMessage}`,
    FRONT_MATTER_NOT_A_MAPPING: 'the frontmatter must be a YAML mapping',
  };
  // The YAML parser's error stays the cause, as before; otherwise the front-matter error is.
  const cause = error.code === 'FRONT_MATTER_INVALID_YAML' ? error.cause : error;
  return new WorkerSkillFormatError({ file: error.file, line: error.line, message: messages[error.code], cause });
}

/**
 * Reads a SKILL.md: YAML frontmatter between `---` lines, then the body.
 * Checks types only, each error naming the file and line; the design
 * checklist is `validateSkill()`.
 */
export function parseSkillMarkdown(options: ParseSkillMarkdownOptions): WorkerSkill {
  const { file } = options;
  let frontMatter: FrontMatter;
  try {
    frontMatter = readFrontMatter({ text: options.text, file });
  } catch (error) {
    throw FrontMatterError.isInstance(error) ? formatErrorOf(error) : error;
  }
  const { document, lineOf } = frontMatter;
  // An empty block is not a mapping here either: a worker skill has required fields.
  if (document.contents === null) throw new WorkerSkillFormatError({ file, line: FIRST_LINE, message: 'the frontmatter must be a YAML mapping' });
  const reader = new FrontmatterReader({ file, document, lineOf });
  const root = document.toJS() as Record<string, unknown>;

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
  const body = frontMatter.body.replaceAll('\r\n', '\n').trim();
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
  readonly #lineOf: (offset: number) => number;

  constructor(options: { file: string; document: Document; lineOf: (offset: number) => number }) {
    this.#file = options.file;
    this.#document = options.document;
    this.#lineOf = options.lineOf;
  }

  /** File line of the node at `path`, or of its nearest existing parent. */
  lineOf(path: Path): number {
    for (let length = path.length; length >= 0; length -= 1) {
      const node = this.#document.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
      if (node?.range !== undefined) return this.#lineOf(node.range[0]);
    }
    return FIRST_LINE;
  }

  error(path: Path, message: string): WorkerSkillFormatError {
    const field = formatPath(path);
    return new WorkerSkillFormatError({ file: this.#file, line: this.lineOf(path), field, message: `${field} ${message}` });
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
