// ntp/kb/parse_lexer.cpp: tokenizer, token cursor, atom syntax and deferred
// symbol interning shared by the readers (see lexer.h).
#include "ntp/kb/lexer.h"
#include "ntp/kb/limits.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace ntp {
namespace lex {
namespace {

// Blanks separate tokens; form feed and vertical tab are refused by check_text.
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// A UTF-8 continuation byte does not start a new column.
bool starts_code_point(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

// Inputs of more bytes are refused: line and column numbers then fit in an int.
constexpr std::size_t kMaxTextBytes = std::numeric_limits<int>::max() - 1;

bool in_range(const std::string& text, std::size_t i, unsigned lo, unsigned hi) {
  if (i >= text.size()) return false;
  const unsigned b = static_cast<unsigned char>(text[i]);
  return b >= lo && b <= hi;
}

// Length of the well-formed UTF-8 sequence at text[i] whose first byte is
// >= 0x80, or 0 if there is none (Unicode 15, table 3-7: no overlong forms,
// no surrogates, nothing above U+10FFFF).
std::size_t utf8_length(const std::string& text, std::size_t i) {
  const unsigned b = static_cast<unsigned char>(text[i]);
  auto tail = [&](std::size_t n, unsigned lo, unsigned hi) -> std::size_t {
    if (!in_range(text, i + 1, lo, hi)) return 0;
    for (std::size_t k = 2; k <= n; ++k)
      if (!in_range(text, i + k, 0x80, 0xBF)) return 0;
    return n + 1;
  };
  if (b >= 0xC2 && b <= 0xDF) return tail(1, 0x80, 0xBF);
  if (b == 0xE0) return tail(2, 0xA0, 0xBF);
  if (b == 0xED) return tail(2, 0x80, 0x9F);
  if (b >= 0xE1 && b <= 0xEF) return tail(2, 0x80, 0xBF);
  if (b == 0xF0) return tail(3, 0x90, 0xBF);
  if (b >= 0xF1 && b <= 0xF3) return tail(3, 0x80, 0xBF);
  if (b == 0xF4) return tail(3, 0x80, 0x8F);
  return 0;
}

std::string hex_byte(unsigned char b) {
  const char* digits = "0123456789ABCDEF";
  return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

// What is wrong with the byte at text[i] (`length` bytes long as UTF-8, 0 if
// it does not start a well-formed sequence), or "" when it is text.
std::string byte_problem(const std::string& text, std::size_t i, std::size_t length) {
  // A byte order mark after the start is invisible, yet would become part of
  // a name: `\uFEFFp` and `p` would be two predicates. It comes from files
  // joined with their marks.
  if (i > 0 && length == 3 && text.compare(i, 3, "\xEF\xBB\xBF") == 0)
    return "found a byte order mark (U+FEFF) after the start of the text (expected one only at the start; "
           "was this file joined from several?)";
  const unsigned char b = static_cast<unsigned char>(text[i]);
  if (b == '\0') return "found a NUL byte (expected text; NUL bytes come from binary or UTF-16 files)";
  if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7F)
    return "found control character " + hex_byte(b) + " (expected text: tabs, line breaks and printable characters)";
  if (length == 0)
    return "found byte " + hex_byte(b) +
           ", which is not valid UTF-8 (expected UTF-8 text; convert the file, e.g. with iconv -f latin1 -t utf-8)";
  return "";
}

}  // namespace

void check_text(const std::string& text, const std::string& file, int first_line) {
  if (text.size() > kMaxTextBytes)
    throw ParseError(file, 0, 0, "input too large (expected at most " + std::to_string(kMaxTextBytes) + " bytes)");
  int line = first_line, column = 1;
  for (std::size_t i = bom_size(text); i < text.size();) {
    const std::size_t length = static_cast<unsigned char>(text[i]) < 0x80 ? 1 : utf8_length(text, i);
    const std::string problem = byte_problem(text, i, length);
    if (!problem.empty()) throw ParseError(file, line, column, problem);
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += length;
  }
}

// Anything else but the punctuation is part of a name. (A string_view rather
// than strchr, which would also match the terminating NUL.)
bool is_name_char(char c) { return !is_blank(c) && std::string_view("(),:%<>.").find(c) == std::string_view::npos; }

std::size_t bom_size(const std::string& text) { return text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0; }

int code_points(const std::string& text, std::size_t from, std::size_t to) {
  int n = 0;
  for (std::size_t i = from; i < to && i < text.size(); ++i) n += starts_code_point(text[i]) ? 1 : 0;
  return n;
}

namespace {

// One-character tokens; End for a character that is not one.
TokenKind punctuation(char c) {
  switch (c) {
    case '(': return TokenKind::LParen;
    case ')': return TokenKind::RParen;
    case ',': return TokenKind::Comma;
    case '.': return TokenKind::Dot;
    case '<': return TokenKind::Less;
    case '>': return TokenKind::Greater;
    default: return TokenKind::End;
  }
}

// Walks checked text one byte at a time, keeping the line and the column
// (in code points) of the byte it is at.
class Lexer {
 public:
  Lexer(const std::string& text, const std::string& file, int first_line)
      : text_(text), file_(file), i_(bom_size(text)), line_(first_line) {}

  bool done() const { return i_ >= text_.size(); }

  // Blanks, and with `comments` a '%' up to the end of its line.
  void skip_blanks(bool comments) {
    while (!done() && (is_blank(text_[i_]) || (comments && text_[i_] == '%'))) {
      if (text_[i_] == '%')
        while (!done() && text_[i_] != '\n') advance();
      else
        advance();
    }
  }

  Token next() {
    Token t = start();
    const char c = text_[i_];
    if (c == ':' && i_ + 1 < text_.size() && text_[i_ + 1] == '-') {
      t.kind = TokenKind::Implies;
      advance();
    } else if (c == ':') {
      throw ParseError(file_, line_, column_, "unexpected ':' (expected ':-')");
    } else if (c == '%') {
      throw ParseError(file_, line_, column_, "unexpected '%' (expected a name or punctuation)");
    } else if (c == '"') {
      return quoted_name(t);
    } else if ((t.kind = punctuation(c)) == TokenKind::End) {
      return name(t);
    }
    t.text = t.kind == TokenKind::Implies ? ":-" : std::string(1, c);
    advance();
    return finish(t);
  }

  Token end() { return finish(start()); }

 private:
  // A name runs over name characters and over dots followed by one ("wn.n.01").
  Token name(Token t) {
    t.kind = TokenKind::Name;
    while (!done() && (is_name_char(text_[i_]) ||
                       (text_[i_] == '.' && i_ + 1 < text_.size() && is_name_char(text_[i_ + 1])))) {
      t.text += text_[i_];
      advance();
    }
    return finish(t);
  }
  // A name in double quotes runs to the next quote on the same line and may
  // hold any character but a quote: a textual pattern such as
  // "[XXX] is adjacent to [YYY]" (pattern.h) or a name with punctuation.
  Token quoted_name(Token t) {
    t.kind = TokenKind::Name;
    t.quoted = true;
    advance();
    while (!done() && text_[i_] != '"' && text_[i_] != '\n') {
      t.text += text_[i_];
      advance();
    }
    if (done() || text_[i_] != '"')
      throw ParseError(file_, t.line, t.column, "unterminated quoted name (expected a closing '\"' on the same line)");
    if (t.text.empty()) throw ParseError(file_, t.line, t.column, "empty quoted name (expected a name between the quotes)");
    advance();
    return finish(t);
  }
  Token start() const {
    Token t;
    t.line = line_;
    t.column = column_;
    return t;
  }
  Token finish(Token t) const {
    t.end_line = line_;
    t.end_column = column_;
    return t;
  }
  void advance() {
    if (text_[i_] == '\n') {
      ++line_;
      column_ = 1;
    } else if (i_ + 1 >= text_.size() || starts_code_point(text_[i_ + 1])) {
      ++column_;  // a column per code point: the last byte of one moves on
    }
    ++i_;
  }

  const std::string& text_;
  const std::string& file_;
  std::size_t i_;
  int line_, column_ = 1;
};

}  // namespace

std::vector<Token> tokenize(const std::string& text, const std::string& file, int first_line, bool comments) {
  check_text(text, file, first_line);
  std::vector<Token> tokens;
  Lexer lexer(text, file, first_line);
  for (lexer.skip_blanks(comments); !lexer.done(); lexer.skip_blanks(comments)) tokens.push_back(lexer.next());
  tokens.push_back(lexer.end());
  return tokens;
}

std::string describe(const Token& t) {
  return t.kind == TokenKind::End ? std::string("end of input") : "'" + t.text + "'";
}

Cursor::Cursor(std::vector<Token> tokens, std::string file) : tokens_(std::move(tokens)), file_(std::move(file)) {
  if (tokens_.empty() || tokens_.back().kind != TokenKind::End)
    throw std::logic_error("Cursor: token list without End");
}

const Token& Cursor::next() {
  const Token& t = tokens_[pos_];
  if (t.kind != TokenKind::End) ++pos_;
  return t;
}

bool Cursor::accept(TokenKind kind) {
  if (peek().kind != kind) return false;
  next();
  return true;
}

const Token& Cursor::expect(TokenKind kind, const std::string& expected) {
  if (peek().kind != kind) fail_unexpected(expected);
  return next();
}

bool Cursor::at_line_end() const {
  if (pos_ == 0) return false;
  return peek().kind == TokenKind::End || peek().line > tokens_[pos_ - 1].end_line;
}

void Cursor::fail_unexpected(const std::string& expected) const {
  const Token& t = peek();
  std::string problem;
  if (at_line_end()) {
    problem = t.kind == TokenKind::End ? "input ends too early" : "line ends too early";
  } else if (t.kind == TokenKind::RParen) {
    problem = "unbalanced parentheses: ')' has no matching '('";
  } else {
    problem = "found " + describe(t);
  }
  fail_here(problem + " (expected " + expected + ")");
}

void Cursor::fail_here(const std::string& what) const {
  if (at_line_end()) {
    const Token& last = tokens_[pos_ - 1];
    throw ParseError(file_, last.end_line, last.end_column, what);
  }
  fail_at(peek(), what);
}

void Cursor::fail_at(const Token& at, const std::string& what) const {
  throw ParseError(file_, at.line, at.column, what);
}

RawAtom parse_raw_atom(Cursor& cursor) {
  RawAtom atom;
  // An atom may start a new line: a wrong first token is reported where it is.
  if (cursor.peek().kind != TokenKind::Name) {
    if (cursor.at_end()) cursor.fail_unexpected("a predicate name");
    cursor.fail_at(cursor.peek(), "found " + describe(cursor.peek()) + " (expected a predicate name)");
  }
  atom.predicate = cursor.next();
  const Token& open = cursor.expect(TokenKind::LParen, "'(' after the predicate name '" + atom.predicate.text + "'");
  const std::string where = std::to_string(open.line) + ":" + std::to_string(open.column);
  do {
    if (cursor.peek().kind == TokenKind::LParen)
      cursor.fail_here("unbalanced parentheses: nested '(' (expected an argument)");
    if (atom.args.size() == static_cast<std::size_t>(kMaxArity))
      cursor.fail_here("atom '" + atom.predicate.text + "' has more than " + std::to_string(kMaxArity) +
                       " arguments (expected at most " + std::to_string(kMaxArity) + ")");
    atom.args.push_back(cursor.expect(TokenKind::Name, "an argument"));
  } while (cursor.accept(TokenKind::Comma));
  if (cursor.peek().kind != TokenKind::RParen) {
    const std::string problem = "unbalanced parentheses: '(' at " + where + " is not closed";
    if (cursor.at_line_end()) cursor.fail_here(problem + " (expected ',' or ')')");
    cursor.fail_here(problem + ", found " + describe(cursor.peek()) + " (expected ',' or ')')");
  }
  cursor.next();
  return atom;
}

int PendingSymbols::lookup(const std::string& name) {
  const int id = vocab_.find(name);
  if (id >= 0) return id;
  auto it = new_ids_.find(name);
  if (it != new_ids_.end()) return it->second;
  if (policy_ == NewSymbols::Refuse) return -1;
  const int new_id = vocab_.size() + static_cast<int>(new_names_.size());
  new_names_.push_back(name);
  new_ids_.emplace(name, new_id);
  return new_id;
}

void PendingSymbols::commit(Vocabulary& vocab) const {
  for (const std::string& name : new_names_) {
    if (vocab.intern(name) != new_ids_.at(name)) {
      throw std::logic_error("PendingSymbols::commit: vocabulary changed while a file was being read");
    }
  }
}

std::string read_all(std::istream& in) {
  // In chunks, so that input that can only be refused is not read to its
  // end: check_text refuses a NUL byte wherever it is (so /dev/zero or a
  // binary file stops at its first chunk), and any text over its size limit.
  std::string text;
  std::vector<char> chunk(1 << 16);
  while (text.size() <= kMaxTextBytes) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const std::size_t n = static_cast<std::size_t>(in.gcount());
    text.append(chunk.data(), n);
    if (n < chunk.size() || std::memchr(chunk.data(), '\0', n) != nullptr) break;  // the end, or a NUL
  }
  return text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ParseError(path, 0, 0,
                     std::string("cannot open file: ") + std::strerror(errno) + " (expected a readable file)");
  return read_all(in);
}

bool has_extension(const std::string& path, const std::string& ext) {
  return path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
}

int parse_positive_int(const std::string& text) {
  if (text.empty()) return -1;
  long long value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return -1;
    value = std::min<long long>(value * 10 + (c - '0'), std::numeric_limits<int>::max());
  }
  return value > 0 ? static_cast<int>(value) : -1;
}

}  // namespace lex
}  // namespace ntp
