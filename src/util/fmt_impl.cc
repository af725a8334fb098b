// fmt's compiled part, built into muster instead of linking Debian's libfmt.so: the binary is pushed to nodes
// that may not have libfmt (docs/agent-protocol.md, bootstrap). FMT_HEADER_ONLY would do the same but
// compiles all of fmt in every translation unit (~2 s each); this is the one unit that does.
#include <fmt/format-inl.h>

// The templates format.h declares `extern` for the library to provide.
namespace fmt::detail {
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl<char>(locale_ref) -> char;
template auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template auto decimal_point_impl<wchar_t>(locale_ref) -> wchar_t;
template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;
}  // namespace fmt::detail
