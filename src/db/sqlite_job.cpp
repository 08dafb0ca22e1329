#include "db/sqlite_job.hpp"

namespace ringside::db::sqlite {

void Job::start(Kind kind) {
  kind_ = kind;
  user_found_ = false;
  worlds_.clear();
  fortunes_.clear();
  text_.clear();
  outcome_ = Outcome::kOk;
  detail_offset_ = detail_length_ = 0;
  abandoned.store(false, std::memory_order_relaxed);
  waiting_for_lock.store(false, std::memory_order_relaxed);
}

void Job::ask_user(std::int64_t id) {
  start(Kind::kFindUser);
  user_id_ = id;
}

void Job::ask_worlds(std::span<const std::int32_t> ids) {
  start(Kind::kReadWorlds);
  ids_.assign(ids.begin(), ids.end());
}

void Job::ask_fortunes() { start(Kind::kReadFortunes); }

void Job::ask_write(std::span<const WorldRow> rows) {
  start(Kind::kWriteWorlds);
  rows_.assign(rows.begin(), rows.end());
}

void Job::on_user(const UserRow& row) {
  user_found_ = true;
  found_user_id_ = row.id;
  name_length_ = static_cast<std::uint32_t>(row.name.size());
  email_length_ = static_cast<std::uint32_t>(row.email.size());
  created_at_length_ = static_cast<std::uint32_t>(row.created_at.size());
  text_.append(row.name).append(row.email).append(row.created_at);
}

void Job::on_world(std::size_t index, const WorldRow& row) {
  worlds_.push_back({static_cast<std::uint32_t>(index), row});
}

void Job::on_fortune(const FortuneRow& row) {
  fortunes_.push_back({row.id, static_cast<std::uint32_t>(text_.size()),
                       static_cast<std::uint32_t>(row.message.size())});
  text_.append(row.message);
}

void Job::on_done(Outcome outcome, std::string_view detail) {
  outcome_ = outcome;
  detail_offset_ = static_cast<std::uint32_t>(text_.size());
  detail_length_ = static_cast<std::uint32_t>(detail.size());
  text_.append(detail);
}

void Job::deliver(Sink& to) const {
  switch (kind_) {
    case Kind::kFindUser:
      if (user_found_) {
        const std::uint32_t email_at = name_length_;
        const std::uint32_t created_at = email_at + email_length_;
        to.on_user(UserRow{found_user_id_, text(0, name_length_), text(email_at, email_length_),
                             text(created_at, created_at_length_)});
      }
      break;
    case Kind::kReadWorlds:
      for (const FoundWorld& found : worlds_) to.on_world(found.index, found.row);
      break;
    case Kind::kReadFortunes:
      for (const FoundFortune& found : fortunes_) {
        to.on_fortune(FortuneRow{found.id, text(found.offset, found.length)});
      }
      break;
    case Kind::kWriteWorlds:
      break;
  }
  to.on_done(outcome_, text(detail_offset_, detail_length_));
}

}  // namespace ringside::db::sqlite
