// ntp/model/complex.cpp: ComplEx scores (see complex.h).
#include "ntp/model/complex.h"

#include "autodiff/ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ntp {

namespace {

void check_binary(const Model& model, const std::vector<Atom>& atoms) {
  if (model.dim % 2 != 0) throw std::invalid_argument("ComplEx needs an even embedding dimension");
  for (const Atom& a : atoms)
    if (a.args.size() != 2) throw std::invalid_argument("ComplEx scores binary atoms only");
}

}  // namespace

ad::Var complex_scores(ad::Tape& t, Model& model, const std::vector<Atom>& atoms) {
  check_binary(model, atoms);
  std::vector<ad::Index> p_rows, s_rows, o_rows;
  for (const Atom& a : atoms) {
    p_rows.push_back(a.predicate);
    s_rows.push_back(a.args[0]);
    o_rows.push_back(a.args[1]);
  }
  const ad::Index h = model.dim / 2;
  const ad::Var p = ad::gather(t, model.predicates, p_rows), s = ad::gather(t, model.constants, s_rows),
                o = ad::gather(t, model.constants, o_rows);  // each (n, d)
  const ad::Var p_re = ad::slice_cols(t, p, 0, h), p_im = ad::slice_cols(t, p, h, h);
  const ad::Var s_re = ad::slice_cols(t, s, 0, h), s_im = ad::slice_cols(t, s, h, h);
  const ad::Var o_re = ad::slice_cols(t, o, 0, h), o_im = ad::slice_cols(t, o, h, h);
  // (n, h): the four products of the real part of p * s * conj(o).
  const ad::Var terms = ad::sub(
      t, ad::add(t, ad::mul(t, p_re, ad::add(t, ad::mul(t, s_re, o_re), ad::mul(t, s_im, o_im))),
                 ad::mul(t, p_im, ad::mul(t, s_re, o_im))),
      ad::mul(t, p_im, ad::mul(t, s_im, o_re)));
  const ad::Var logits = ad::matmul(t, terms, t.constant(ad::Matrix::Ones(h, 1)));  // (n, 1) row sums
  return ad::exp(t, ad::log_sigmoid(t, logits));
}

ad::Var complex_query_rows(ad::Tape& t, Model& model, const std::vector<Atom>& atoms, int slot) {
  check_binary(model, atoms);
  std::vector<ad::Index> p_rows, x_rows;  // x: the argument that stays
  for (const Atom& a : atoms) {
    p_rows.push_back(a.predicate);
    x_rows.push_back(a.args[slot == 0 ? 1 : 0]);
  }
  const ad::Index h = model.dim / 2;
  const ad::Var p = ad::gather(t, model.predicates, p_rows), x = ad::gather(t, model.constants, x_rows);  // (n, d)
  const ad::Var p_re = ad::slice_cols(t, p, 0, h), p_im = ad::slice_cols(t, p, h, h);
  const ad::Var x_re = ad::slice_cols(t, x, 0, h), x_im = ad::slice_cols(t, x, h, h);
  const ad::Var re_re = ad::mul(t, p_re, x_re), im_im = ad::mul(t, p_im, x_im);
  const ad::Var re_im = ad::mul(t, p_re, x_im), im_re = ad::mul(t, p_im, x_re);
  if (slot == 1)  // the object: x is the subject
    return ad::concat_cols(t, {ad::sub(t, re_re, im_im), ad::add(t, re_im, im_re)});
  return ad::concat_cols(t, {ad::add(t, re_re, im_im), ad::sub(t, re_im, im_re)});  // the subject: x is the object
}

std::vector<double> complex_scores(const Model& model, const std::vector<Atom>& atoms) {
  check_binary(model, atoms);
  const ad::Index h = model.dim / 2;
  std::vector<double> out;
  out.reserve(atoms.size());
  for (const Atom& a : atoms) {
    const auto p = model.predicates.value.row(a.predicate), s = model.constants.value.row(a.args[0]),
               o = model.constants.value.row(a.args[1]);
    const auto p_re = p.head(h), p_im = p.tail(h), s_re = s.head(h), s_im = s.tail(h), o_re = o.head(h),
               o_im = o.tail(h);
    const double logit = (p_re.array() * s_re.array() * o_re.array() + p_re.array() * s_im.array() * o_im.array() +
                          p_im.array() * s_re.array() * o_im.array() - p_im.array() * s_im.array() * o_re.array())
                             .sum();
    out.push_back(1.0 / (1.0 + std::exp(-logit)));
  }
  return out;
}

std::vector<double> complex_scores_at(const Model& model, const Atom& atom, int slot) {
  check_binary(model, {atom});
  const ad::Index h = model.dim / 2;
  const auto p = model.predicates.value.row(atom.predicate);
  const auto other = model.constants.value.row(atom.args[slot == 0 ? 1 : 0]);
  const auto p_re = p.head(h), p_im = p.tail(h), x_re = other.head(h), x_im = other.tail(h);
  // logit = w . θ_slot, w from the four products of complex_scores.
  Eigen::VectorXd w(model.dim);
  if (slot == 1) {  // the object: x is the subject
    w.head(h) = (p_re.array() * x_re.array() - p_im.array() * x_im.array()).matrix().transpose();
    w.tail(h) = (p_re.array() * x_im.array() + p_im.array() * x_re.array()).matrix().transpose();
  } else {  // the subject: x is the object
    w.head(h) = (p_re.array() * x_re.array() + p_im.array() * x_im.array()).matrix().transpose();
    w.tail(h) = (p_re.array() * x_im.array() - p_im.array() * x_re.array()).matrix().transpose();
  }
  const Eigen::VectorXd logits = model.constants.value * w;
  std::vector<double> out(static_cast<std::size_t>(logits.size()));
  for (Eigen::Index c = 0; c < logits.size(); ++c) out[static_cast<std::size_t>(c)] = 1.0 / (1.0 + std::exp(-logits[c]));
  return out;
}

double least_proof_score(Combine rule, double target, double link) {
  switch (rule) {
    case Combine::Max: return link >= target ? 0.0 : target;
    case Combine::Mean: return std::max(0.0, 2.0 * target - link);
    case Combine::Complex: return link >= target ? 0.0 : std::numeric_limits<double>::infinity();
    case Combine::Proof: break;
  }
  return target;
}

double join_scores(Combine rule, double proof, double link) {
  switch (rule) {
    case Combine::Max: return std::max(proof, link);
    case Combine::Mean: return 0.5 * (proof + link);
    case Combine::Complex: return link;
    case Combine::Proof: break;
  }
  return proof;
}

}  // namespace ntp
