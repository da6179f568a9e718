defmodule Punctual.Grid do
  @moduledoc false
  # The arithmetic of a fixed grid, as `crates/punctual/src/grid.rs` has it for every other
  # client: tick `k` is due `anchor + (k - anchor_index) * period`, in integer nanoseconds
  # (never periods added up, so no tick drifts), and a missed-tick policy decides what an
  # overdue tick does. A tick is overdue when its deadline is before the clock reading
  # taken as its wait begins; there is no tolerance. Pure: no clock, no port.
  #
  #   * `:burst` - overdue ticks fire at once, in order, none counted as missed.
  #   * `:skip` (the default) - overdue grid points are dropped, counted in `missed`, and
  #     the wait is for the first grid point not yet past; the grid never moves.
  #   * `:delay` - the overdue tick fires at once, and the grid is re-anchored where it
  #     fired; `missed` counts the old grid points that passed.

  defstruct [:period, :policy, :anchor, anchor_index: 0, next: 0, missed: 0]

  @policies [:skip, :burst, :delay]

  def policies, do: @policies

  # A grid whose tick 0 is due at `first`; `period` > 0, both integers (ns).
  def new(first, period, policy) when policy in @policies,
    do: %__MODULE__{period: period, policy: policy, anchor: first}

  # When tick `index` is due on the grid as it stands; nil before its anchor.
  def deadline_of(%__MODULE__{anchor_index: anchor_index} = grid, index)
      when index >= anchor_index,
      do: grid.anchor + (index - anchor_index) * grid.period

  def deadline_of(%__MODULE__{}, _index), do: nil

  # The tick to wait for, given the clock reading `now` taken as the wait begins.
  def due(%__MODULE__{next: index, period: period} = grid, now) do
    deadline = deadline_of(grid, index)

    if deadline < now do
      behind = now - deadline

      case grid.policy do
        :burst ->
          %{index: index, deadline: deadline, missed: 0, overdue: true}

        :skip ->
          missed = div(behind + period - 1, period)
          index = index + missed
          %{index: index, deadline: deadline_of(grid, index), missed: missed, overdue: true}

        :delay ->
          %{index: index, deadline: deadline, missed: div(behind, period), overdue: true}
      end
    else
      %{index: index, deadline: deadline, missed: 0, overdue: false}
    end
  end

  # Records that the tick `due` fired at the clock reading `woke`.
  def advance(%__MODULE__{} = grid, due, woke) do
    grid =
      if due.overdue and grid.policy == :delay,
        do: %{grid | anchor: woke, anchor_index: due.index},
        else: grid

    %{grid | next: due.index + 1, missed: grid.missed + due.missed}
  end
end
