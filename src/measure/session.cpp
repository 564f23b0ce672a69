#include "kerntime/session.hpp"

#include "cupti/cupti_scope.hpp"

namespace kerntime {

session::session() {
  detail::enter_cupti_scope();
}

session::~session() {
  detail::leave_cupti_scope();
}

int session::depth() noexcept {
  return detail::cupti_scope_depth();
}

} // namespace kerntime
