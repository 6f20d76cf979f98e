from django.urls import path

from puzzles import views

app_name = "puzzles"

urlpatterns = [
    path("puzzles/", views.puzzle_next, name="next"),
    path("puzzles/history/", views.puzzle_history, name="history"),
    path("puzzles/<int:puzzle_id>/", views.puzzle_detail, name="detail"),
]
