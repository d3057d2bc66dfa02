// ridgeline io: the schema's tables (core/schema/fields) read and written as JSON. One loop
// each: a new row of a table is parsed, range-checked and printed without code here.
#pragma once

#include "core/io/json_reader.hpp"
#include "core/schema/fields.hpp"

#include <cstring>
#include <vector>

namespace rl::io {

// Does a row belong to `group` (nullptr: to any)?
inline bool in_group(const schema::FieldInfo &i, const char *group) {
  return !group || std::strcmp(i.group, group) == 0;
}

// Reads the plain (not custom) rows of `object` ("": the reader's own object) that apply to
// `modes` (and belong to `group`, unless nullptr) into s; an absent key keeps s's value (the
// struct's or the preset's default).
template <class S>
void read_fields(ObjectReader &r, S &s, const std::vector<schema::Field<S>> &table,
                 const char *object = "", schema::Modes modes = schema::kAllModes,
                 const char *group = nullptr) {
  for (const schema::Field<S> &f : table) {
    const schema::FieldInfo &i = f.info;
    if (i.custom || std::strcmp(i.object, object) != 0 || !(i.modes & modes) || !in_group(i, group))
      continue;
    if (f.num) {
      if (const auto v = r.opt_num(i.key, i.lo, i.hi))
        s.*f.num = *v;
    } else if (f.integer) {
      if (const auto v = r.opt_int(i.key, static_cast<i64>(i.lo), static_cast<i64>(i.hi)))
        s.*f.integer = *v;
    } else if (f.set) {
      if (const auto v = r.opt_choice(i.key, *i.choices))
        f.set(s, *v);
    } else if (const auto v = r.opt_bool(i.key)) {
      s.*f.flag = *v;
    }
  }
}

// The same for an object of optional members: a present key sets the member, an absent one
// leaves it unset (integer, boolean and choice rows; a custom row is read by the parser).
template <class S>
void read_fields(ObjectReader &r, S &s, const std::vector<schema::OptField<S>> &table) {
  for (const schema::OptField<S> &f : table) {
    const schema::FieldInfo &i = f.info;
    if (f.integer)
      s.*f.integer = r.opt_int(i.key, static_cast<i64>(i.lo), static_cast<i64>(i.hi));
    else if (f.flag)
      s.*f.flag = r.opt_bool(i.key);
    else if (f.set)
      if (const auto v = r.opt_choice(i.key, *i.choices))
        f.set(s, *v);
  }
}

// Writes every row of `object` that applies to `modes` (and belongs to `group`, unless
// nullptr) into j (a row marked omit_zero only when it is given).
template <class S>
void write_fields(json &j, const S &s, const std::vector<schema::Field<S>> &table,
                  const char *object = "", schema::Modes modes = schema::kAllModes,
                  const char *group = nullptr) {
  for (const schema::Field<S> &f : table) {
    if (std::strcmp(f.info.object, object) != 0 || !(f.info.modes & modes) ||
        !in_group(f.info, group))
      continue;
    if (f.info.omit_zero && (f.num       ? s.*f.num == 0
                             : f.integer ? s.*f.integer == 0
                             : f.flag    ? !(s.*f.flag)
                                         : f.get(s) == 0)) // a choice: its first
      continue;                                         // not given
    if (f.num)
      j[f.info.key] = s.*f.num;
    else if (f.integer)
      j[f.info.key] = s.*f.integer;
    else if (f.get)
      j[f.info.key] = schema::name_in(*f.info.choices, f.get(s));
    else
      j[f.info.key] = s.*f.flag;
  }
}

// Writes the integer, boolean and choice rows that are set.
template <class S>
void write_fields(json &j, const S &s, const std::vector<schema::OptField<S>> &table) {
  for (const schema::OptField<S> &f : table) {
    if (f.integer && s.*f.integer)
      j[f.info.key] = *(s.*f.integer);
    else if (f.flag && s.*f.flag)
      j[f.info.key] = *(s.*f.flag);
    else if (f.get && f.has(s))
      j[f.info.key] = schema::name_in(*f.info.choices, f.get(s));
  }
}

// The rows as JSON ({path, type, min, max, unit, default, help, modes, vllm}), for `ridgeline
// fields --json` and the page.
json fields_json();

} // namespace rl::io
