// The label selector string grammar of k8s.io/apimachinery/pkg/labels, token for token, so that
// odd inputs are accepted or refused, and reported, exactly as kube-apiserver does.
import { fieldErrorMessage, fieldInvalid } from './field-errors.js';
import { compareGoStrings } from './go-text.js';
import {
  BINARY_OPERATOR_LIST,
  type LabelOperator,
  type LabelRequirement,
  newLabelRequirement,
} from './label-requirement.js';
import { isQualifiedName } from './name-validation.js';
import { SelectorError } from './selector-error.js';

type Token =
  | 'end'
  | 'identifier'
  | 'closePar'
  | 'comma'
  | 'doesNotExist'
  | 'doubleEquals'
  | 'equals'
  | 'greaterThan'
  | 'in'
  | 'lessThan'
  | 'notEquals'
  | 'notIn'
  | 'openPar';

const KEYWORDS: ReadonlyMap<string, Token> = new Map<string, Token>([
  [')', 'closePar'],
  [',', 'comma'],
  ['!', 'doesNotExist'],
  ['==', 'doubleEquals'],
  ['=', 'equals'],
  ['>', 'greaterThan'],
  ['in', 'in'],
  ['<', 'lessThan'],
  ['!=', 'notEquals'],
  ['notin', 'notIn'],
  ['(', 'openPar'],
]);

interface ScannedItem {
  token: Token;
  literal: string;
}

// Go reads the string byte by byte and treats a NUL byte like the end of input.
const END = '\0';

function isWhitespace(char: string): boolean {
  return char === ' ' || char === '\t' || char === '\r' || char === '\n';
}

const SPECIAL_SYMBOLS = new Set(['=', '!', '(', ')', ',', '>', '<']);

function isSpecialSymbol(char: string): boolean {
  return SPECIAL_SYMBOLS.has(char);
}

class Lexer {
  private position = 0;

  constructor(private readonly text: string) {}

  private read(): string {
    if (this.position >= this.text.length) return END;
    return this.text[this.position++]!;
  }

  private unread(): void {
    this.position--;
  }

  next(): ScannedItem {
    let char = this.read();
    while (isWhitespace(char)) char = this.read();
    if (char === END) return { token: 'end', literal: '' };
    this.unread();
    return isSpecialSymbol(char) ? this.scanSpecialSymbol() : this.scanIdentifierOrKeyword();
  }

  private scanIdentifierOrKeyword(): ScannedItem {
    let literal = '';
    for (;;) {
      const char = this.read();
      if (char === END) break;
      if (isSpecialSymbol(char) || isWhitespace(char)) {
        this.unread();
        break;
      }
      literal += char;
    }
    return { token: KEYWORDS.get(literal) ?? 'identifier', literal };
  }

  /** The longest operator at this point: `!=` rather than `!`, `==` rather than `=`. */
  private scanSpecialSymbol(): ScannedItem {
    let buffer = '';
    let last: ScannedItem | undefined;
    for (;;) {
      const char = this.read();
      if (char === END) break;
      if (!isSpecialSymbol(char)) {
        this.unread();
        break;
      }
      buffer += char;
      const token = KEYWORDS.get(buffer);
      if (token !== undefined) {
        last = { token, literal: buffer };
      } else if (last !== undefined) {
        this.unread();
        break;
      }
    }
    // Every single special symbol is itself a token, so `last` is always set here.
    return last!;
  }
}

/** Where a token is read: in value position the words `in` and `notin` are plain identifiers. */
type Context = 'keyAndOperator' | 'values';

class Parser {
  private readonly items: ScannedItem[] = [];
  private position = 0;

  constructor(text: string) {
    const lexer = new Lexer(text);
    for (;;) {
      const item = lexer.next();
      this.items.push(item);
      if (item.token === 'end') break;
    }
  }

  private static inContext(item: ScannedItem, context: Context): ScannedItem {
    if (context === 'values' && (item.token === 'in' || item.token === 'notIn')) {
      return { token: 'identifier', literal: item.literal };
    }
    return item;
  }

  private lookahead(context: Context): ScannedItem {
    return Parser.inContext(this.items[this.position]!, context);
  }

  private consume(context: Context): ScannedItem {
    return Parser.inContext(this.items[this.position++]!, context);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { token, literal } = this.lookahead('values');
      if (token === 'end') return requirements;
      if (token !== 'identifier' && token !== 'doesNotExist') {
        throw new SelectorError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
      try {
        requirements.push(this.parseRequirement());
      } catch (error) {
        if (error instanceof SelectorError)
          throw new SelectorError(`unable to parse requirement: ${error.message}`);
        throw error;
      }
      const after = this.consume('values');
      if (after.token === 'end') return requirements;
      if (after.token !== 'comma') {
        throw new SelectorError(`found '${after.literal}', expected: ',' or 'end of string'`);
      }
      const next = this.lookahead('values');
      if (next.token !== 'identifier' && next.token !== 'doesNotExist') {
        throw new SelectorError(`found '${next.literal}', expected: identifier after ','`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator: inferred } = this.parseKeyAndInferOperator();
    if (inferred !== undefined) return newLabelRequirement(key, inferred, []);
    const operator = this.parseOperator();
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    return newLabelRequirement(key, operator, [...values].sort(compareGoStrings));
  }

  /** Reads `[!]key`; a key followed by `,` or the end means "exists". */
  private parseKeyAndInferOperator(): { key: string; operator: LabelOperator | undefined } {
    let operator: LabelOperator | undefined;
    let item = this.consume('values');
    if (item.token === 'doesNotExist') {
      operator = '!';
      item = this.consume('values');
    }
    if (item.token !== 'identifier') throw new SelectorError(`found '${item.literal}', expected: identifier`);
    const problems = isQualifiedName(item.literal);
    if (problems.length > 0) {
      // Kubernetes validates the key here with no field path, hence the "<nil>" in its message.
      throw new SelectorError(fieldErrorMessage(fieldInvalid('<nil>', item.literal, problems.join('; '))));
    }
    const next = this.lookahead('values').token;
    if (operator === undefined && (next === 'end' || next === 'comma')) operator = 'exists';
    return { key: item.literal, operator };
  }

  private parseOperator(): LabelOperator {
    const { token, literal } = this.consume('keyAndOperator');
    switch (token) {
      case 'in':
        return 'in';
      case 'notIn':
        return 'notin';
      case 'equals':
        return '=';
      case 'doubleEquals':
        return '==';
      case 'notEquals':
        return '!=';
      case 'greaterThan':
        return 'gt';
      case 'lessThan':
        return 'lt';
      default:
        throw new SelectorError(`found '${literal}', expected: ${BINARY_OPERATOR_LIST}`);
    }
  }

  /** Reads `(a,b,...)`; empty entries stand for the empty value, so `()` is `("")`. */
  private parseValues(): Set<string> {
    const open = this.consume('values');
    if (open.token !== 'openPar') throw new SelectorError(`found '${open.literal}' expected: '('`);
    const { token, literal } = this.lookahead('values');
    if (token === 'closePar') {
      this.consume('values');
      return new Set(['']);
    }
    if (token !== 'identifier' && token !== 'comma') {
      throw new SelectorError(`found '${literal}', expected: ',', ')' or identifier`);
    }
    const values = this.parseIdentifierList();
    if (this.consume('values').token !== 'closePar') {
      throw new SelectorError(`found '${literal}', expected: ')'`);
    }
    return values;
  }

  private parseIdentifierList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { token, literal } = this.consume('values');
      if (token === 'identifier') {
        values.add(literal);
        const next = this.lookahead('values');
        if (next.token === 'comma') continue;
        if (next.token === 'closePar') return values;
        throw new SelectorError(`found '${next.literal}', expected: ',' or ')'`);
      }
      if (token !== 'comma') throw new SelectorError(`found '${literal}', expected: ',', or identifier`);
      // A comma with nothing before or after it contributes the empty value.
      if (values.size === 0) values.add('');
      const next = this.lookahead('values').token;
      if (next === 'closePar') {
        values.add('');
        return values;
      }
      if (next === 'comma') {
        this.consume('values');
        values.add('');
      }
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead('values').token;
    if (next === 'end' || next === 'comma') return new Set(['']);
    const { token, literal } = this.consume('values');
    if (token !== 'identifier') throw new SelectorError(`found '${literal}', expected: identifier`);
    return new Set([literal]);
  }
}

/** Parses a label selector string into its requirements (unsorted), or throws a SelectorError. */
export function parseLabelRequirements(text: string): LabelRequirement[] {
  return new Parser(text).parse();
}
